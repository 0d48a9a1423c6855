/* pyconfig.h for building gameanim's core for macOS (arm64 and x86-64,
 * both LP64) with zig cc against the stable ABI (Py_LIMITED_API
 * 0x030B0000; tools/cross/build.py).  Only what the limited-API headers of
 * CPython 3.11+ consult: the sizes of the C types and the POSIX headers
 * they include.  The module is linked with -undefined dynamic_lookup: the
 * Python symbols resolve in the interpreter that loads it. */
#ifndef Py_CONFIG_H
#define Py_CONFIG_H

#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_DOUBLE 8
#define SIZEOF_FLOAT 4
#define SIZEOF_VOID_P 8
#define SIZEOF_SIZE_T 8
#define SIZEOF_TIME_T 8
#define SIZEOF_OFF_T 8
#define SIZEOF_FPOS_T 8
#define SIZEOF_WCHAR_T 4
#define SIZEOF_PID_T 4
#define SIZEOF_UINTPTR_T 8
#define SIZEOF__BOOL 1
#define ALIGNOF_SIZE_T 8
#define ALIGNOF_LONG 8

#define HAVE_SSIZE_T 1
#define HAVE_UNISTD_H 1
#define HAVE_WCHAR_H 1
#define HAVE_STDARG_PROTOTYPES
#define STDC_HEADERS 1
#define HAVE_ERRNO_H 1
#define HAVE_FCNTL_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_CLOCK_GETTIME 1

#endif
