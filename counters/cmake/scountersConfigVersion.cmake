# scountersConfigVersion.cmake - find_package(scounters X.Y) compatibility
# (made by configure). Same major version and at least the version asked;
# while the major version is 0 (an unstable ABI, see README "ABI and soname
# policy") the minor version must match too. An exact request matches
# MAJOR.MINOR.PATCH only.
set(PACKAGE_VERSION "0.1.0")
set(PACKAGE_VERSION_COMPATIBLE FALSE)
set(PACKAGE_VERSION_EXACT FALSE)
if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
if(NOT PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
elseif(PACKAGE_FIND_VERSION VERSION_LESS_EQUAL PACKAGE_VERSION
       AND PACKAGE_FIND_VERSION_MAJOR EQUAL 0
       AND (NOT 0 EQUAL 0 OR PACKAGE_FIND_VERSION_MINOR EQUAL 1))
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
# A library for another pointer size (a 32-bit build beside a 64-bit one) does not fit.
if(NOT "${CMAKE_SIZEOF_VOID_P}" STREQUAL "" AND NOT "${CMAKE_SIZEOF_VOID_P}" STREQUAL "8")
  set(PACKAGE_VERSION "${PACKAGE_VERSION} (8-byte pointers)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
endif()
