"""Builds the package `gameanim`: its C core `gameanim._core`, one
stable-ABI (abi3) binary for CPython >= 3.11 (Blender 3.4 Debian / 4.1 -
5.x), and the Python modules around it (CLI, type stubs)."""
import glob
import os
import sys

from setuptools import Extension, setup

LIMITED_API = 0x030B0000  # Python 3.11

extra_compile_args = []
extra_link_args = []
if sys.platform != "win32":
    extra_compile_args = ["-std=c11", "-Wall", "-Wextra", "-O2", "-fvisibility=hidden", "-ffp-contract=off"]
    if os.environ.get("GAMEANIM_WERROR"):
        extra_compile_args.append("-Werror")
    sanitize = os.environ.get("GAMEANIM_SANITIZE")  # e.g. "address,undefined"
    if sanitize:
        extra_compile_args += [f"-fsanitize={sanitize}", "-fno-omit-frame-pointer", "-g", "-O1"]
        extra_link_args += [f"-fsanitize={sanitize}"]
else:
    extra_compile_args = ["/std:c11", "/W3", "/fp:precise"]

# every C file under csrc/ (core/, formats/, models/, codecs/, archives/,
# python/) is part of the one module; fuzz targets and tools live outside
# csrc/.  Only csrc/core is on the include path: a header of another folder
# is included by its relative path ("../models/gx_texture.h"), so an upward
# include shows in the source and tests/test_c_layers.py refuses it.
sources = sorted(glob.glob(os.path.join("csrc", "**", "*.c"), recursive=True))
include_dirs = [os.path.join("csrc", "core")]
setup(
    ext_modules=[
        Extension(
            "gameanim._core",
            sources=sources,
            include_dirs=include_dirs,
            define_macros=[("Py_LIMITED_API", hex(LIMITED_API))],
            py_limited_api=True,
            extra_compile_args=extra_compile_args,
            extra_link_args=extra_link_args,
            libraries=[] if sys.platform == "win32" else ["m"],
        )
    ],
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
