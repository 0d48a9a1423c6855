/* pyconfig.h for building gameanim's core for 64-bit Windows with
 * mingw-w64 GCC against the stable ABI (Py_LIMITED_API 0x030B0000) of
 * python3.dll (tools/cross/build.py).  Only what the limited-API headers of
 * CPython 3.11+ consult: the Windows flags, the sizes of the C types on
 * LLP64 Windows, and shared-library linkage (PyAPI_FUNC = dllimport,
 * PyMODINIT_FUNC = dllexport).  Written for this build, after the meaning
 * of each macro in CPython's configure and PC/pyconfig.h documentation. */
#ifndef Py_CONFIG_H
#define Py_CONFIG_H

#define MS_WIN32
#define MS_WIN64
#define MS_WINDOWS
#define NT_THREADS
#define WITH_THREAD
#define Py_ENABLE_SHARED 1
#define HAVE_DECLSPEC_DLL

#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG 4
#define SIZEOF_LONG_LONG 8
#define SIZEOF_DOUBLE 8
#define SIZEOF_FLOAT 4
#define SIZEOF_VOID_P 8
#define SIZEOF_SIZE_T 8
#define SIZEOF_TIME_T 8
#define SIZEOF_OFF_T 4
#define SIZEOF_FPOS_T 8
#define SIZEOF_WCHAR_T 2
#define SIZEOF_LONG_DOUBLE 16
#define SIZEOF_PID_T SIZEOF_INT
#define SIZEOF_UINTPTR_T 8
#define SIZEOF__BOOL 1
#define ALIGNOF_SIZE_T 8
#define ALIGNOF_LONG 4
#define ALIGNOF_MAX_ALIGN_T 16

#define HAVE_WCHAR_H 1
#define HAVE_STDARG_PROTOTYPES
#define STDC_HEADERS 1
#define HAVE_ERRNO_H 1
#define HAVE_FCNTL_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define PLATFORM "win32"

#endif
