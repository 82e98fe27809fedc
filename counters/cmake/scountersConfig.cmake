# scountersConfig.cmake - find_package(scounters CONFIG) (made by make from
# counters/cmake/scountersConfig.cmake.in; relocatable: paths are found from
# this file's place under the prefix).
#
# Targets:
#   scounters::scounters         the shared library when it was installed,
#                                else the static one
#   scounters::scounters_static  the static library, when installed
#   scounters::scounters_shared  the shared library, when installed
# Variables: scounters_VERSION, scounters_LINE_SIZE (the padding unit the
# headers and library were built with; see sc_abi.h).
include(CMakeFindDependencyMacro)
find_dependency(Threads)

get_filename_component(_scounters_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_scounters_libdir "${_scounters_prefix}/lib")
set(_scounters_incdir "${_scounters_prefix}/include")
set(scounters_LINE_SIZE 64)

if(NOT EXISTS "${_scounters_incdir}/scounters/scounters.h")
  set(scounters_FOUND FALSE)
  set(scounters_NOT_FOUND_MESSAGE "scounters: no ${_scounters_incdir}/scounters/scounters.h")
  return()
endif()

# libatomic where 64-bit atomics need it: the inlined fast paths use it in
# the application's objects, so it is in every target's link interface.
set(_scounters_atomic "")
string(REGEX REPLACE "^-l" "" _scounters_atomic "${_scounters_atomic}")

if(NOT TARGET scounters::scounters_static AND EXISTS "${_scounters_libdir}/libscounters.a")
  add_library(scounters::scounters_static STATIC IMPORTED)
  set_target_properties(scounters::scounters_static PROPERTIES
    IMPORTED_LOCATION "${_scounters_libdir}/libscounters.a"
    IMPORTED_LINK_INTERFACE_LANGUAGES "C"
    INTERFACE_INCLUDE_DIRECTORIES "${_scounters_incdir}"
    INTERFACE_LINK_LIBRARIES "${_scounters_atomic};m;Threads::Threads")
endif()
if(NOT TARGET scounters::scounters_shared AND EXISTS "${_scounters_libdir}/libscounters.so")
  add_library(scounters::scounters_shared SHARED IMPORTED)
  # The soname's file (libscounters.so.0): what the program records and loads.
  file(GLOB _scounters_so "${_scounters_libdir}/libscounters.so.0")
  if(NOT _scounters_so)
    set(_scounters_so "${_scounters_libdir}/libscounters.so")
  endif()
  set_target_properties(scounters::scounters_shared PROPERTIES
    IMPORTED_LOCATION "${_scounters_so}"
    IMPORTED_SONAME "libscounters.so.0"
    INTERFACE_INCLUDE_DIRECTORIES "${_scounters_incdir}"
    INTERFACE_LINK_LIBRARIES "${_scounters_atomic};Threads::Threads")
endif()
if(NOT TARGET scounters::scounters)
  if(TARGET scounters::scounters_shared)
    add_library(scounters::scounters INTERFACE IMPORTED)
    set_target_properties(scounters::scounters PROPERTIES INTERFACE_LINK_LIBRARIES scounters::scounters_shared)
  elseif(TARGET scounters::scounters_static)
    add_library(scounters::scounters INTERFACE IMPORTED)
    set_target_properties(scounters::scounters PROPERTIES INTERFACE_LINK_LIBRARIES scounters::scounters_static)
  else()
    set(scounters_FOUND FALSE)
    set(scounters_NOT_FOUND_MESSAGE "scounters: no libscounters.so or libscounters.a in ${_scounters_libdir}")
    return()
  endif()
endif()
unset(_scounters_so)
unset(_scounters_atomic)
