"""Settings of numba's parallel loops that every layer shares (graph construction, kernels, drivers).

It sits below ``breadth.kernels`` so that graph construction can use it
without importing the kernels package (data flows graph -> kernels).
"""
from contextlib import contextmanager

import numba


@contextmanager
def parallel_chunksize(size=1):
    """Dynamic scheduling for the parallel loops launched inside (numba's thread-local setting).

    Set from Python because calling ``numba.set_parallel_chunksize`` inside a jitted
    function stops numba from caching it.
    """
    old = numba.set_parallel_chunksize(size)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(old)
