"""Builds the Cython core. Compiler directives live here, once, for every extension."""

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DIRECTIVES = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "nonecheck": False,
}

extensions = [
    Extension(
        f"engine.{name}",
        [f"engine/{name}.pyx"],
        include_dirs=[numpy.get_include()],
        extra_compile_args=["-O3"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in ("board", "mcts", "batch")
]

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES))
