"""Builds the one C extension module, `gameanim`, as a stable-ABI (abi3)
binary for CPython >= 3.11 (Blender 3.4 Debian / 4.1 - 5.x)."""
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

sources = sorted(glob.glob(os.path.join("csrc", "*.c")))
# fuzz targets and other tools live in subfolders and are not part of the module
setup(
    ext_modules=[
        Extension(
            "gameanim",
            sources=sources,
            include_dirs=["csrc"],
            define_macros=[("Py_LIMITED_API", hex(LIMITED_API))],
            py_limited_api=True,
            extra_compile_args=extra_compile_args,
            extra_link_args=extra_link_args,
            libraries=[] if sys.platform == "win32" else ["m"],
        )
    ],
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
