"""MLX's dtypes, devices and streams for mslsim, and bfloat16 for numpy (which has none)."""

import numpy as np

__all__ = [
    "Dtype", "bool_", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "float16", "float32", "float64", "bfloat16", "complex64", "bfloat16_array", "to_bfloat16",
    "Device", "DeviceType", "Stream", "cpu", "gpu", "default_stream", "new_stream",
    "default_device", "resolve_dtype",
]


class Dtype:
    """An MLX dtype (``mslsim.float32`` is MLX's ``mx.float32``).

    ``name`` is MLX's name, ``size`` the item size in bytes. Numeric dtypes carry the numpy dtype
    that holds them in ``dtype`` (so ``np.zeros(3, dtype=mslsim.float16)`` works); bfloat16 has
    none, see :class:`bfloat16_array`.
    """

    __slots__ = ("name", "size", "_np")

    def __init__(self, name, size, np_name):
        self.name = name
        self.size = size
        self._np = np.dtype(np_name) if np_name else None

    @property
    def dtype(self):
        if self._np is None:
            raise AttributeError("bfloat16 has no numpy dtype; use mslsim.bfloat16_array")
        return self._np

    def __repr__(self):
        return "mslsim." + self.name

    def __eq__(self, other):
        if isinstance(other, Dtype):
            return self is other
        resolved = resolve_dtype(other)
        return resolved is self if resolved is not None else NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(("mslsim.Dtype", self.name))

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


bool_ = Dtype("bool_", 1, "bool")
uint8 = Dtype("uint8", 1, "uint8")
uint16 = Dtype("uint16", 2, "uint16")
uint32 = Dtype("uint32", 4, "uint32")
uint64 = Dtype("uint64", 8, "uint64")
int8 = Dtype("int8", 1, "int8")
int16 = Dtype("int16", 2, "int16")
int32 = Dtype("int32", 4, "int32")
int64 = Dtype("int64", 8, "int64")
float16 = Dtype("float16", 2, "float16")
float32 = Dtype("float32", 4, "float32")
float64 = Dtype("float64", 8, "float64")
bfloat16 = Dtype("bfloat16", 2, None)
complex64 = Dtype("complex64", 8, "complex64")

_ALL = [bool_, uint8, uint16, uint32, uint64, int8, int16, int32, int64, float16, float32,
        float64, bfloat16, complex64]
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME["bool"] = bool_  # the C++ side's name, and numpy's
_BY_NUMPY = {d._np: d for d in _ALL if d._np is not None}


def _dtype_by_name(name):
    return _BY_NAME[name]


def resolve_dtype(value):
    """The :class:`Dtype` for an MLX dtype, a numpy dtype or scalar type, or a dtype name
    (``"float32"``, ``"bool_"``, ``"bfloat16"``, or anything ``np.dtype`` understands);
    ``None`` if ``value`` is none of these. ml_dtypes' bfloat16 maps to ``bfloat16``."""
    if isinstance(value, Dtype):
        return value
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
    elif not (isinstance(value, np.dtype) or
              (isinstance(value, type) and issubclass(value, np.generic))):
        return None
    try:
        npd = np.dtype(value)
    except TypeError:
        return None
    if npd.name == "bfloat16" and npd.itemsize == 2:
        return bfloat16
    if not npd.isnative:
        npd = npd.newbyteorder("=")
    return _BY_NUMPY.get(npd)


# ---------------------------------------------------------------------------------------------
# bfloat16


def _f32_to_bf16_bits(values):
    """float32 -> bfloat16 bit patterns, round to nearest even; NaNs stay NaNs (payload kept
    where it fits, else quieted), so every bfloat16 pattern survives bf16 -> f32 -> bf16."""
    u = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.ascontiguousarray(values, dtype=np.float32))
    if nan.any():
        upper = (u >> 16).astype(np.uint16)
        keeps_nan = (upper & 0x007F) != 0
        rounded = np.where(nan, np.where(keeps_nan, upper, upper | 0x0040), rounded)
    return rounded.astype(np.uint16)


def _bf16_bits_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


class bfloat16_array:
    """A bfloat16 array for numpy: its uint16 bit patterns (``bits``, any numpy layout, a view
    or not) and therefore its shape.

    * ``mslsim.to_bfloat16(x)`` makes one from floats (numpy's float32 rounding to nearest even,
      as MLX's ``astype(mx.bfloat16)``); ``mslsim.bfloat16_array(bits)`` wraps existing uint16
      bit patterns without a copy.
    * ``.to_float32()`` and ``np.asarray(b)`` give float32 (exact); ``.astype(dtype)`` any numpy
      dtype; ``to_bfloat16(b.to_float32())`` gives back the same bits (every pattern, NaNs too).
    * Kernels take it as an input (``const device bfloat16_t*``) and return bfloat16 outputs as
      this class. Indexing, ``.T``, ``transpose``, ``reshape`` and ``copy`` act on ``bits``, so
      strided and transposed bfloat16 views work like numpy views.
    """

    __slots__ = ("bits",)
    dtype = bfloat16
    itemsize = 2

    def __init__(self, bits):
        if isinstance(bits, bfloat16_array):
            bits = bits.bits
        bits = np.asarray(bits)
        if bits.dtype != np.uint16:
            if bits.dtype.name == "bfloat16" and bits.dtype.itemsize == 2:  # ml_dtypes
                bits = bits.view(np.uint16)
            else:
                raise TypeError("bfloat16_array wraps uint16 bit patterns; use "
                                "mslsim.to_bfloat16() to convert %s values" % bits.dtype)
        self.bits = bits

    # numpy-like metadata
    shape = property(lambda self: self.bits.shape)
    ndim = property(lambda self: self.bits.ndim)
    size = property(lambda self: self.bits.size)
    nbytes = property(lambda self: self.bits.nbytes)
    strides = property(lambda self: self.bits.strides)

    def __len__(self):
        return len(self.bits)

    def to_float32(self):
        """The values as a new float32 numpy array (exact)."""
        return _bf16_bits_to_f32(self.bits)

    def astype(self, dtype):
        d = resolve_dtype(dtype)
        if d is bfloat16:
            return self.copy()
        return self.to_float32().astype(dtype if d is None else d.dtype)

    def __array__(self, dtype=None, copy=None):
        values = self.to_float32()
        return values if dtype is None else values.astype(dtype)

    def tolist(self):
        return self.to_float32().tolist()

    def item(self):
        return self.to_float32().item()

    def __float__(self):
        return float(self.to_float32())

    def __getitem__(self, index):
        picked = self.bits[index]
        return bfloat16_array(picked if isinstance(picked, np.ndarray) else np.asarray(picked))

    @property
    def T(self):
        return bfloat16_array(self.bits.T)

    def transpose(self, *axes):
        return bfloat16_array(self.bits.transpose(*axes))

    def reshape(self, *shape):
        return bfloat16_array(self.bits.reshape(*shape))

    def copy(self):
        return bfloat16_array(self.bits.copy())

    def __eq__(self, other):  # by value, elementwise, as numpy arrays compare (+0 == -0)
        return self.to_float32() == np.asarray(other)

    def __ne__(self, other):
        return self.to_float32() != np.asarray(other)

    __hash__ = None

    def __repr__(self):
        return "bfloat16_array(%s)" % np.array2string(self.to_float32(), separator=", ")


def to_bfloat16(values):
    """Round values to bfloat16 (nearest even, via float32 as MLX does) -> :class:`bfloat16_array`.
    A bfloat16_array is returned as a copy."""
    if isinstance(values, bfloat16_array):
        return values.copy()
    values = np.asarray(values)
    if values.dtype.name == "bfloat16" and values.dtype.itemsize == 2:
        return bfloat16_array(values.view(np.uint16).copy())
    return bfloat16_array(_f32_to_bf16_bits(values.astype(np.float32)).reshape(values.shape))


# ---------------------------------------------------------------------------------------------
# devices and streams (MLX's metal_kernel only runs on the GPU; a CPU stream is an error)


class DeviceType:
    cpu = "cpu"
    gpu = "gpu"


class Device:
    """``mslsim.gpu`` / ``mslsim.cpu``, like ``mx.gpu`` / ``mx.cpu``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=0):
        if isinstance(type, Device):
            type, index = type.type, type.index
        if type not in ("cpu", "gpu"):
            raise ValueError("mslsim.Device: type must be 'cpu' or 'gpu', got %r" % (type,))
        self.type = type
        self.index = index

    def __eq__(self, other):
        if isinstance(other, Device):
            return (self.type, self.index) == (other.type, other.index)
        if isinstance(other, str):
            return self.type == other
        return NotImplemented

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        return "Device(%s, %d)" % (self.type, self.index)


class Stream:
    """A stream on a device (``mslsim.default_stream(mslsim.gpu)``); mslsim runs everything
    synchronously, the stream only decides CPU (an error, as in MLX) or GPU."""

    __slots__ = ("device", "index")

    def __init__(self, device, index=0):
        self.device = Device(device)
        self.index = index

    def __eq__(self, other):
        if isinstance(other, Stream):
            return (self.device, self.index) == (other.device, other.index)
        return NotImplemented

    def __hash__(self):
        return hash((self.device, self.index))

    def __repr__(self):
        return "Stream(%r, index=%d)" % (self.device, self.index)


cpu = Device("cpu")
gpu = Device("gpu")
_stream_count = [2]


def default_device():
    return gpu


def default_stream(device):
    return Stream(device, 0 if Device(device).type == "gpu" else 1)


def new_stream(device):
    _stream_count[0] += 1
    return Stream(device, _stream_count[0])
