# SPDX-License-Identifier: MIT
# SC_BUNDLE_DETECT: what `make bundle` (harness/bundle.sh) can link into a
# fully static scbench (harness/scbench-static), decided from the static
# archives that are there (`$CC -print-file-name=libX.a`):
#   hwloc  libhwloc.a and every library of `pkg-config --static --libs hwloc`;
#          but libudev, never linked (Debian ships no static archive of it):
#          hwloc asks udev only for block devices' properties, and
#          harness/static_libs.c answers its udev_new() with "no udev".
#   PAPI   libpapi.a and libpfm.a (pkg-config --static --libs papi).
# What is left out is said in BUNDLE_LEFT_OUT (scbench --version, meta.json's
# build_linkage). Sets BUNDLE_NAME (scounters-bundle-VERSION-ARCH),
# BUNDLE_HWLOC_LIBS, BUNDLE_PAPI_LIBS, BUNDLE_UNAVAILABLE (why no bundle can
# be made here, empty when one can) and the conditionals BUNDLE_HWLOC and
# BUNDLE_PAPI. Call after the hwloc and PAPI checks.
AC_DEFUN([SC_BUNDLE_DETECT], [
sc_static_archive() { # NAME: 0 when libNAME.a is found by the compiler
  case `$CC -print-file-name=lib$[]1.a 2>/dev/null` in /*) return 0 ;; *) return 1 ;; esac
}
# sc_static_libs PKG: the -l libraries of pkg-config --static without a static
# archive, in sc_missing; the link line in sc_libs.
sc_static_libs() {
  sc_libs=`$PKG_CONFIG --static --libs "$[]1" 2>/dev/null`
  sc_missing=""
  for sc_l in $sc_libs; do
    case $sc_l in -l*) sc_static_archive "${sc_l#-l}" || sc_missing="$sc_missing ${sc_l#-l}" ;; esac
  done
}
AC_MSG_CHECKING([what a fully static scbench (make bundle) can link])
BUNDLE_NAME="scounters-bundle-$PACKAGE_VERSION-$host_cpu"
BUNDLE_UNAVAILABLE=""
BUNDLE_LEFT_OUT=""
BUNDLE_HWLOC_LIBS=""
BUNDLE_PAPI_LIBS=""
sc_static_archive c || BUNDLE_UNAVAILABLE="no static C library (libc.a: apt-get install libc6-dev)"
AS_IF([test "x$enable_static" = xno],
  [BUNDLE_UNAVAILABLE="configured --disable-static: no static libscounters to link"])
# A sanitizer's runtime is a shared library: such a build cannot be static.
case " $CFLAGS $LDFLAGS " in
*" -fsanitize="*) BUNDLE_UNAVAILABLE="a sanitizer build (-fsanitize= in CFLAGS or LDFLAGS): its runtime cannot be linked statically" ;;
esac
bundle_hwloc=no
AS_IF([test "x$have_hwloc" != xyes],
  [BUNDLE_LEFT_OUT="hwloc (configured without it: placement by the affinity mask, no NUMA nodes)"],
  [sc_static_libs hwloc
   sc_missing=`echo "$sc_missing" | sed 's/ udev\b//'`
   AS_IF([test -n "$sc_missing"],
     [BUNDLE_LEFT_OUT="hwloc (no static archive of:$sc_missing; placement by the affinity mask, no NUMA nodes)"],
     [bundle_hwloc=yes
      BUNDLE_HWLOC_LIBS=`echo "$sc_libs" | sed 's/-ludev\b//'`
      BUNDLE_LEFT_OUT="libudev (not linked: hwloc reads no udev properties of block devices)"])])
bundle_papi=no
AS_IF([test "x$have_papi" != xyes],
  [BUNDLE_LEFT_OUT="$BUNDLE_LEFT_OUT${BUNDLE_LEFT_OUT:+; }PAPI (configured without it: no hardware events)"],
  [sc_static_libs papi
   AS_IF([test -z "$sc_libs"], [sc_libs=$PAPI_LIBS; sc_missing=""
     for sc_l in papi pfm; do sc_static_archive $sc_l || sc_missing="$sc_missing $sc_l"; done])
   AS_IF([test -n "$sc_missing"],
     [BUNDLE_LEFT_OUT="$BUNDLE_LEFT_OUT${BUNDLE_LEFT_OUT:+; }PAPI (no static archive of:$sc_missing; apt-get install libpfm4-dev: no hardware events)"],
     [bundle_papi=yes
      BUNDLE_PAPI_LIBS=$sc_libs])])
BUNDLE_LEFT_OUT="$BUNDLE_LEFT_OUT${BUNDLE_LEFT_OUT:+; }shared objects (none is loaded: hwloc's plugins and PAPI's GPU components are not found)"
AS_IF([test -n "$BUNDLE_UNAVAILABLE"], [AC_MSG_RESULT([none: $BUNDLE_UNAVAILABLE])],
  [AC_MSG_RESULT([hwloc $bundle_hwloc, PAPI $bundle_papi])])
AC_SUBST([BUNDLE_NAME])
AC_SUBST([BUNDLE_UNAVAILABLE])
AC_SUBST([BUNDLE_HWLOC_LIBS])
AC_SUBST([BUNDLE_PAPI_LIBS])
AC_DEFINE_UNQUOTED([SC_BUNDLE_NAME], ["$BUNDLE_NAME"], [The bundle's name (make bundle)])
AC_DEFINE_UNQUOTED([SC_BUNDLE_LEFT_OUT], ["$(echo "$BUNDLE_LEFT_OUT" | tr -d '"\\')"],
  [What the static scbench of make bundle does not link])
AM_CONDITIONAL([BUNDLE_HWLOC], [test "x$bundle_hwloc" = xyes])
AM_CONDITIONAL([BUNDLE_PAPI], [test "x$bundle_papi" = xyes])
])
