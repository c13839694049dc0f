"""``mslsim.Library``: whole ``.metal`` files (or source strings) and their kernels, called on numpy
arrays that the kernel reads and writes in place, as a Metal shared buffer is.

    lib = mslsim.Library("kernels.metal", include_dirs=["include"], constants={0: True})
    lib.kernel_names                       # every kernel of the file
    k = lib.kernel("saxpy")
    y = np.zeros(1024, np.float32)
    k(buffers={0: x, 1: y, 2: np.float32(2.0)}, grid=(1024, 1, 1), threadgroup=(256, 1, 1))
    # y now holds the result

Buffers follow Metal's binding model: a buffer is an allocation and an argument binds it at a
byte offset. ``buffers`` maps ``[[buffer(n)]]`` indices to:

* a numpy array: bound at its first element, in place. A view (``packed[16:]``) is bound at its
  offset inside the array it views, and its allocation is that whole array: the kernel may read
  outside the view as long as it stays inside the allocation, as on Metal; two views of one array
  are aliases of one allocation. Arrays must be C-contiguous; read-only arrays are copied (the
  kernel's writes to them are dropped).
* ``(array, offset)``: the array is the allocation, the kernel's pointer is at byte ``offset``.
* ``bytes``, a numpy structured (record) array, or a uint8 array given as ``(array, offset)``:
  untyped memory, bound to any argument type (argument structs, ``setBytes``, packed tensors).
* a numpy scalar (``np.float32(2)``), or a Python ``bool``/``int``/``float`` (bool, int32,
  float32): a ``constant T&`` value.
* :class:`bfloat16_array`: its bit patterns.

Function constants are fixed when the library is made (``constants={index: value}``), as a Metal
pipeline is specialised. Findings raise :class:`KernelError`, as for ``metal_kernel``; the checks
are chosen as there (``check=``, ``with mslsim.checks(...)``, ``MSLSIM_CHECK``, default
``"bounds,sync"``).
"""
import operator as _operator
import os as _os

import numpy as _np

from ._mslsim import _Library
from ._types import bfloat16_array

_NUMPY_NAMES = {"float32", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "bool", "float64", "complex64"}


def _root(array):
    """The array owning the memory `array` views (the allocation), when it is one block."""
    root = array
    while isinstance(root.base, _np.ndarray):
        root = root.base
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        return array
    lo, hi = _byte_range(root)
    a_lo, a_hi = _byte_range(array)
    return root if lo <= a_lo and a_hi <= hi else array


def _byte_range(array):
    start = array.__array_interface__["data"][0]
    return start, start + array.nbytes


def _dims(what, value):
    try:
        dims = tuple(_operator.index(d) for d in value)
    except TypeError:
        raise TypeError("mslsim: `%s` must be a tuple of up to three ints, got %r" % (what, value)) from None
    if not 1 <= len(dims) <= 3 or any(d < 0 or d > 0xFFFFFFFF for d in dims):
        raise ValueError("mslsim: `%s` must be one to three ints from 0 to 2**32-1, got %r" % (what, value))
    return dims + (1,) * (3 - len(dims))


class _Binding:
    """One [[buffer(n)]] binding: what the C++ side binds, and what keeps its memory alive."""

    def __init__(self, index, value):
        self.index = index
        offset = None
        if isinstance(value, tuple):
            if len(value) != 2:
                raise TypeError("mslsim: buffer %d: expected an array or (array, byte offset), got a %d-tuple"
                                % (index, len(value)))
            value, offset = value
            offset = _operator.index(offset)
        raw, name = False, None
        if isinstance(value, bfloat16_array):
            value, name = value.bits, "bfloat16"
        elif isinstance(value, (bytes, bytearray, memoryview)):
            value, raw = _np.frombuffer(bytes(value), _np.uint8).copy(), True
        elif isinstance(value, bool):
            value = _np.array(value, _np.bool_)
        elif isinstance(value, int):
            value = _np.array(value, _np.int32)
        elif isinstance(value, float):
            value = _np.array(value, _np.float32)
        elif isinstance(value, _np.generic):
            value = _np.array(value)
        if not isinstance(value, _np.ndarray):
            raise TypeError("mslsim: buffer %d: cannot bind a %s (numpy arrays, scalars, bytes)"
                            % (index, type(value).__name__))
        if value.dtype.names is not None or value.dtype.kind == "V":
            raw = True
        elif value.dtype.name == "bfloat16" and value.dtype.itemsize == 2:  # ml_dtypes
            value = value.view(_np.uint16)
            name = "bfloat16"
        elif value.dtype.name in _NUMPY_NAMES:
            name = name or value.dtype.name
        else:
            raise ValueError("mslsim: buffer %d: numpy dtype %s has no Metal type" % (index, value.dtype))
        if not value.flags.c_contiguous:
            raise ValueError("mslsim: buffer %d: the array must be C-contiguous (numpy strides %s); pass "
                             "np.ascontiguousarray(a), or the array it views with a byte offset" % (index, value.strides))
        if not value.flags.writeable:
            value = value.copy()  # the kernel's writes to it are dropped
        if offset is not None:
            allocation = value
            if value.dtype == _np.uint8:
                raw = True
            if not 0 <= offset <= value.nbytes:
                raise ValueError("mslsim: buffer %d: offset %d is outside its allocation of %d bytes"
                                 % (index, offset, value.nbytes))
            start = _byte_range(value)[0] + offset
            nbytes = value.nbytes - offset
        else:
            allocation = _root(value)
            start, end = _byte_range(value)
            nbytes = end - start
        self.keep = (value, allocation)
        lo, hi = _byte_range(allocation)
        origin = "buffer %d" % index if allocation is value else "buffer %d (a view at byte %d of a %d-byte array)" % (
            index, start - lo, hi - lo)
        self.args = (index, "raw" if raw else name, start, nbytes, lo, hi - lo, origin)


class LibraryKernel:
    """One kernel of a :class:`Library`; call it with keyword arguments."""

    def __init__(self, library, name):
        self._library = library
        self.name = name

    def __call__(self, *, buffers, grid, threadgroup, dispatch="threads", threadgroup_memory=None,
                 check=None, timeout=None, progress=None):
        """Dispatch the kernel.

        Args:
          buffers (dict[int, ...]): [[buffer(n)]] index -> array, (array, byte offset), bytes,
            structured array or scalar (see the module docstring). Arrays are updated in place.
          grid (tuple[int, ...]): threads (``dispatch="threads"``, dispatchThreads) or threadgroups
            (``dispatch="threadgroups"``, dispatchThreadgroups), up to three dimensions.
          threadgroup (tuple[int, ...]): threads per threadgroup.
          threadgroup_memory (dict[int, int], optional): [[threadgroup(n)]] index -> bytes.
          check (str, optional): the checks for this call.
          timeout (float, optional): seconds before the dispatch is stopped (default
            ``mslsim.timeout_seconds``).
          progress (bool | callable, optional): as for ``metal_kernel`` calls.
        """
        import mslsim
        if not isinstance(buffers, dict):
            raise TypeError("mslsim: `buffers` must be a dict of [[buffer(n)]] index -> array")
        bindings = [_Binding(_operator.index(i), v) for i, v in sorted(buffers.items())]
        memory = {_operator.index(i): _operator.index(b) for i, b in (threadgroup_memory or {}).items()}
        self._library._lib.dispatch(self.name, [b.args for b in bindings], memory, _dims("grid", grid),
                                    _dims("threadgroup", threadgroup), str(dispatch),
                                    mslsim._active_checks(check),
                                    float(mslsim.timeout_seconds if timeout is None else timeout),
                                    mslsim._workers(), mslsim._suppressions(), mslsim._report_findings(),
                                    mslsim._progress_callback(progress))
        del bindings  # the memory (and copies) stay alive until the kernel has run

    def __repr__(self):
        return "<mslsim.LibraryKernel %r>" % self.name


class Library:
    """A ``.metal`` file (``Library(path)``) or source string (``Library(source=...)``), compiled
    once: the front end checks it whole; each kernel gets native code when first called."""

    def __init__(self, path=None, *, source=None, name="source.metal", include_dirs=(), defines=None,
                 constants=None):
        if (path is None) == (source is None):
            raise TypeError("mslsim.Library: give a path or source=, not both")
        if path is not None:
            path = _os.fspath(path)
        defines = ["%s=%s" % (k, v) if v is not None else str(k) for k, v in (defines or {}).items()] \
            if isinstance(defines, dict) else list(defines or [])
        values = {}
        for index, value in (constants or {}).items():
            if isinstance(value, (bool, _np.bool_)):
                value = 1.0 if value else 0.0
            values[_operator.index(index)] = float(value)
        self._lib = _Library(path, source, name, [_os.fspath(d) for d in include_dirs], defines, values)
        self.path = path
        self._names = None

    @property
    def kernel_names(self):
        if self._names is None:
            self._names = list(self._lib.kernel_names())
        return list(self._names)

    def kernel(self, name):
        names = self.kernel_names
        if name not in names:
            raise ValueError("mslsim: no kernel '%s' in the library (it has: %s)" % (name, ", ".join(names)))
        return LibraryKernel(self, name)

    def __repr__(self):
        return "<mslsim.Library %r>" % (self.path or "source")
