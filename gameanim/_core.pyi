# Types of the C core `gameanim._core` (csrc/python/), re-exported by the
# package `gameanim`.  tests/test_package.py keeps this file and the built
# module in step: every public name here exists there and the other way
# round, except the names that exist only for type checkers (the TypedDicts
# and aliases below, importable under `if TYPE_CHECKING:` from
# gameanim._core).
from array import array
from collections.abc import Iterable, Sequence
from os import PathLike
from typing import Any, Final, Generic, Literal, SupportsIndex, TypeAlias, TypedDict, TypeVar, overload

from typing_extensions import Buffer, Self

# ---------------------------------------------------------------- aliases

Channel: TypeAlias = Literal[
    "scale", "rotation", "translation", "rotation_quaternion",
    "color",          # BRK / BPK: axis 0..3 = R, G, B, A in s16 colour units
    "texture_index",  # BTP
    "visibility",     # BVA
]
LoopMode: TypeAlias = Literal["once", "once_reset", "loop", "mirror_once", "mirror_loop"]
CalcType: TypeAlias = Literal["basic", "maya"]
KeylessRule: TypeAlias = Literal["base", "base_plus_span"]
# BVA / J3D BCA: how sample() reads a per-frame table between whole frames
FrameRule: TypeAlias = Literal["nearest", "truncate", "lerp"]
Reencode: TypeAlias = Literal["raw", "full"]
# a track's target: joint / bone / texture-matrix entry index or bone ID
# (int), or a bone name (str, JBA)
Target: TypeAlias = int | str
# interpolation codes (CONSTANT, LINEAR, BEZIER), as a sequence or buffer
Codes: TypeAlias = Iterable[int] | Buffer
Extrapolation: TypeAlias = Literal["CONSTANT", "LINEAR"]
# numbers the core copies into a float buffer: a sequence, a range, an
# array('f') / array('d') or any other buffer of numbers
Floats: TypeAlias = Iterable[float] | Buffer
# frames or ticks: one number, or many as above
Frames: TypeAlias = float | Iterable[float] | Buffer
# a 4x4 matrix as 4 rows (mathutils.Matrix works) or 16 numbers, row-major
Matrix: TypeAlias = Sequence[Sequence[float]] | Sequence[float]
# what load() and detect() read: a path, or the file's bytes (any bytes-like)
Source: TypeAlias = str | PathLike[str] | Buffer
# where a file is written
FilePath: TypeAlias = str | bytes | PathLike[str] | PathLike[bytes]
# Track.bezier(): co, handle_left, handle_right ((x, y) float32 pairs) and
# the interpolation codes (int32), for FCurve.keyframe_points.foreach_set
BezierBuffers: TypeAlias = tuple[array[float], array[float], array[float], array[int]]
# ... with flags=True: and whether the times strictly increase, and whether
# some segment is BEZIER
BezierFlagged: TypeAlias = tuple[array[float], array[float], array[float], array[int], bool, bool]
# bake_pose(), per bone: location x y z, rotation_quaternion w x y z,
# scale x y z, each (frame, value) pairs
PoseBuffers: TypeAlias = tuple[
    array[float], array[float], array[float],
    array[float], array[float], array[float], array[float],
    array[float], array[float], array[float],
]


class FormatTraits(TypedDict):
    """One entry of formats(): what the rest of the project knows of a format."""
    name: str
    description: str
    extensions: tuple[str, ...]  # lower case with the dot, the usual one first
    target_kind: Literal["joint", "bone_id", "bone_name", "material_entry", "shape"]
    values: Literal["absolute", "delta"]  # replace the rest pose / apply on it
    up_axis: Literal["X", "Y", "Z"] | None  # None when not spatial
    bone_match: Literal["INDEX", "ID", "NAME"] | None  # None without a rig
    compressions: tuple[str, ...]  # the wrappers the games ship it in
    channels: tuple[Channel, ...]  # the channels its tracks use


class Entry(TypedDict, total=False):
    """Animation.entries: BTK {material, texmtx_id, center, post}; BRK
    {material, kind, color_id}; BPK {material}; BTP {material, texmap}."""
    material: str
    texmtx_id: int
    center: tuple[float, float, float]  # S, T, Q
    post: bool
    kind: Literal["register", "konst"]
    color_id: int
    texmap: int


class EncodeReport(TypedDict):
    """Animation.encode_report: what the last to_bytes() did."""
    max_error: float
    max_error_at: str
    rounded: int
    notes: list[str]
    reused_tracks: int
    encoded_tracks: int


class LocalTransform(TypedDict):
    """local_from_basis(): per-frame local channels."""
    translation: tuple[array[float], array[float], array[float]]
    euler: tuple[array[float], array[float], array[float]]
    quaternion: tuple[array[float], array[float], array[float], array[float]]
    scale: tuple[array[float], array[float], array[float]]
    skew: tuple[float, int]  # largest 3x3 difference, frame index


class Limits(TypedDict):
    input_size: int
    decompressed_size: int
    tracks: int
    keys: int
    frames: int
    string_length: int
    # the default decoded-size limit of a load: max(floor, ratio x input bytes),
    # keys counted at decoded_key_size bytes each (docs/limits.md)
    decoded_size_floor: int
    decoded_size_ratio: int
    decoded_key_size: int


# ---------------------------------------------------------------- constants

__version__: Final[str]
CONSTANT: Final = 0
LINEAR: Final = 1
BEZIER: Final = 2
LOOP_MODES: Final[tuple[LoopMode, LoopMode, LoopMode, LoopMode, LoopMode]]
LIMITS: Final[Limits]


# ---------------------------------------------------------------- errors

class FormatError(ValueError):
    """The bytes are not a valid animation file."""
    format: str | None  # the decoder that rejected the file ('unknown' when none recognised it)
    field: str | None
    offset: int | None  # byte offset in the decompressed data


class EncodeError(ValueError):
    """The animation cannot be written in the chosen format."""
    format: str | None
    field: str | None  # names the track
    offset: int | None


class PrecisionWarning(UserWarning):
    """Values were rounded to what the format can store."""


# ---------------------------------------------------------------- classes

_T = TypeVar("_T")
_N = TypeVar("_N", int, float)  # a key buffer's items (array's own constraint)


class _Keys(Generic[_N]):
    """A Track's key buffer: read as an array ('f' floats, 'B' codes), set
    from any sequence or buffer of numbers."""
    @overload
    def __get__(self, instance: None, owner: type, /) -> Self: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None, /) -> array[_N]: ...
    def __set__(self, instance: object, value: Iterable[_N] | Buffer, /) -> None: ...


class _ListOf(Generic[_T]):
    """An Animation's list attribute: read as a list, set from any iterable."""
    @overload
    def __get__(self, instance: None, owner: type, /) -> Self: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None, /) -> list[_T]: ...
    def __set__(self, instance: object, value: Iterable[_T], /) -> None: ...


class Track:
    """One animated channel component: keys with times, values, slopes and
    the interpolation of each segment."""

    def __init__(
        self,
        target: Target,
        channel: Channel,
        axis: int,
        times: Floats = (),
        values: Floats = (),
        in_slopes: Floats | None = None,
        out_slopes: Floats | None = None,
        interpolation: Codes | None = None,
    ) -> None: ...
    target: Target
    channel: Channel
    axis: int  # 0..2 (x, y, z); 0..3 (w, x, y, z) for quaternions

    times: _Keys[float]  # key frames
    values: _Keys[float]
    in_slopes: _Keys[float]  # slope arriving at each key, value units per frame
    out_slopes: _Keys[float]  # slope leaving each key
    interpolation: _Keys[int]  # CONSTANT, LINEAR or BEZIER per segment
    def __len__(self) -> int: ...
    @overload
    def bezier(self, value_scale: float = 1.0, value_offset: float = 0.0, time_scale: float = 1.0,
               time_offset: float = 0.0, flags: Literal[False] = False) -> BezierBuffers: ...
    @overload
    def bezier(self, value_scale: float = 1.0, value_offset: float = 0.0, time_scale: float = 1.0,
               time_offset: float = 0.0, *, flags: Literal[True]) -> BezierFlagged: ...
    @overload
    def bezier(self, value_scale: float, value_offset: float, time_scale: float, time_offset: float,
               flags: Literal[True]) -> BezierFlagged: ...
    def curve_issue(self) -> str | None: ...
    def evaluate(self, frames: Frames, /) -> array[float]: ...
    def copy(self) -> Track: ...
    def fit(self, tolerance: float, *, use_slopes: bool = False) -> Track: ...


class Animation:
    """One animation clip.  gameanim.load() reads a file; build one in
    Python to write a new file."""

    def __init__(
        self,
        format: str,
        tracks: Iterable[Track] = (),
        *,
        frame_count: float = 0.0,
        fps: float | None = None,
        loop: LoopMode | None = None,
        compression: str | None = None,
        entries: Iterable[Entry] | None = None,
        rotation_frac: int | None = None,
        calc_type: CalcType | None = None,
        start_frame: float | None = None,
        layout: Literal[32, 64] | None = None,
        keyless_rule: KeylessRule | None = None,
        frame_rule: FrameRule | None = None,
    ) -> None: ...
    @property
    def format(self) -> str: ...  # a key of formats()
    frame_count: float
    fps: float | None
    loop: LoopMode | None
    compression: str | None  # a name of compressions(), or None for a bare file

    tracks: _ListOf[Track]
    entries: _ListOf[Entry]  # BTK
    @property
    def info(self) -> dict[str, Any]: ...  # header fields: int, float, str or bytes
    @property
    def encode_report(self) -> EncodeReport | None: ...
    # format parameters
    rotation_frac: int | None  # J3D: 0..15, None to choose the smallest that fits
    calc_type: CalcType  # BTK
    start_frame: float  # BK
    @property
    def layout(self) -> Literal[32, 64]: ...  # JBA
    @layout.setter
    def layout(self, value: int, /) -> None: ...
    keyless_rule: KeylessRule  # JBA
    frame_rule: FrameRule  # BVA, J3D BCA (sampling only, not stored)

    def sample(self, frames: Frames, /) -> array[float]: ...
    def to_bytes(
        self, *, compression: str | None = ..., tolerance: float = 0.0, reencode: Reencode | None = None
    ) -> bytes: ...
    def save(
        self, path: FilePath, /, *, compression: str | None = ..., tolerance: float = 0.0, reencode: Reencode | None = None
    ) -> None: ...
    def copy(self) -> Animation: ...
    def find(self, target: Target, channel: Channel, axis: int, /) -> Track | None: ...
    def original_bytes(self) -> bytes | None: ...
    def applied_tracks(self) -> list[int]: ...
    def is_modified(self) -> bool: ...


Vec3: TypeAlias = tuple[float, float, float]
Int3: TypeAlias = tuple[int, int, int]


class Bone:
    """One bone (joint) of a Model, read-only."""

    @property
    def index(self) -> int: ...
    @property
    def name(self) -> str | None: ...
    @property
    def name_hash(self) -> int | None: ...  # J3D
    @property
    def parent(self) -> int: ...  # -1 for a root
    @property
    def scale(self) -> Vec3: ...
    @property
    def rotation(self) -> Vec3: ...  # Euler XYZ radians
    @property
    def translation(self) -> Vec3: ...  # BK: the pivot in model space
    @property
    def rotation_raw(self) -> Int3: ...
    @property
    def scale_compensate(self) -> bool: ...
    @property
    def scale_compensate_raw(self) -> int | None: ...  # J3D
    @property
    def kind(self) -> int | None: ...  # J3D
    @property
    def bone_id(self) -> int | None: ...  # BK, SM64DS
    @property
    def data_index(self) -> int: ...
    @property
    def scale_fixed(self) -> Int3 | None: ...  # SM64DS
    @property
    def translation_fixed(self) -> Int3 | None: ...  # SM64DS
    @property
    def bound_radius(self) -> float | None: ...  # J3D
    @property
    def bound_min(self) -> Vec3 | None: ...  # J3D
    @property
    def bound_max(self) -> Vec3 | None: ...  # J3D


class Mesh:
    """One SHP1 shape of a J3D Model as a triangle mesh, read-only (docs/meshes.md)."""

    @property
    def index(self) -> int: ...
    @property
    def material(self) -> int: ...  # -1: none
    @property
    def matrix_type(self) -> int: ...  # 0 single, 1 billboard, 2 Y billboard, 3 multi
    @property
    def positions(self) -> array[float]: ...  # 3 per vertex, model space at rest
    @property
    def normals(self) -> array[float] | None: ...  # 3 per vertex, unit length
    @property
    def colors(self) -> list[array[float]]: ...  # RGBA 0..1 per vertex, per set
    @property
    def color_channels(self) -> tuple[int, ...]: ...
    @property
    def uvs(self) -> list[array[float]]: ...  # (s, t) per vertex, per set
    @property
    def uv_channels(self) -> tuple[int, ...]: ...
    @property
    def triangles(self) -> array[int]: ...  # 'I', counter-clockwise
    @property
    def influences(self) -> int: ...
    @property
    def joints(self) -> array[int]: ...  # 'I', influences per vertex
    @property
    def weights(self) -> array[float]: ...  # influences per vertex
    @property
    def position_indices(self) -> array[int]: ...
    @property
    def draw_indices(self) -> array[int]: ...
    @property
    def corner_uvs(self) -> list[array[float]]: ...  # (s, 1 - t) per triangle corner, per set (parallel to uvs)
    @property
    def groups(self) -> tuple[tuple[int, float, array[int]], ...]: ...  # (joint, weight, 'i' vertices)


class Texture:
    """One TEX1 texture of a J3D Model, decoded to RGBA8 top row first, read-only."""

    @property
    def index(self) -> int: ...
    @property
    def name(self) -> str | None: ...
    @property
    def format(self) -> Literal["I4", "I8", "IA4", "IA8", "RGB565", "RGB5A3", "RGBA8", "C4", "C8", "C14X2", "CMPR"]: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def wrap_s(self) -> Literal["clamp", "repeat", "mirror"]: ...
    @property
    def wrap_t(self) -> Literal["clamp", "repeat", "mirror"]: ...
    @property
    def pixels(self) -> bytes: ...
    @property
    def alpha(self) -> int: ...
    @property
    def palette_format(self) -> Literal["IA8", "RGB565", "RGB5A3"] | None: ...
    @property
    def palette_count(self) -> int: ...
    @property
    def min_filter(self) -> int: ...
    @property
    def mag_filter(self) -> int: ...
    @property
    def mip_count(self) -> int: ...
    @property
    def lod_bias(self) -> int: ...


RGBA: TypeAlias = tuple[int, int, int, int]


class TevOp(tuple[Any, ...]):
    """One half (colour or alpha) of a TEV stage; GX names without GX_CC_ / GX_CA_ / GX_TEV_. A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def a(self) -> str: ...  # colour: 'CPREV' 'APREV' 'C0' 'A0' ... 'TEXC' 'TEXA' 'RASC' 'RASA' 'ONE' 'HALF' 'KONST' 'ZERO'; alpha: 'APREV' 'A0' 'A1' 'A2' 'TEXA' 'RASA' 'KONST' 'ZERO'
    @property
    def b(self) -> str: ...
    @property
    def c(self) -> str: ...
    @property
    def d(self) -> str: ...
    @property
    def op(self) -> str: ...  # 'ADD' 'SUB' 'COMP_R8_GT' ... 'COMP_RGB8_EQ' (alpha: 'COMP_A8_GT' 'COMP_A8_EQ')
    @property
    def bias(self) -> str | None: ...  # 'ZERO' 'ADDHALF' 'SUBHALF'; None for a compare
    @property
    def scale(self) -> str | None: ...  # 'SCALE_1' 'SCALE_2' 'SCALE_4' 'DIVIDE_2'; None for a compare
    @property
    def clamp(self) -> bool: ...
    @property
    def out(self) -> str: ...  # 'PREV' 'REG0' 'REG1' 'REG2'
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class TevStage(tuple[Any, ...]):
    """One TEV stage of a Material. A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def color(self) -> TevOp: ...
    @property
    def alpha(self) -> TevOp: ...
    @property
    def konst_color(self) -> str | int: ...  # '1' '7_8' ... '1_8' 'K0'-'K3' 'K0_R' ... 'K3_A'; 8-11 (no GX name) as the int
    @property
    def konst_alpha(self) -> str | int: ...
    @property
    def tex_coord(self) -> int | None: ...
    @property
    def tex_map(self) -> int | None: ...
    @property
    def channel(self) -> str: ...  # 'COLOR0' 'COLOR1' 'ALPHA0' 'ALPHA1' 'COLOR0A0' 'COLOR1A1' 'COLOR_ZERO' 'ALPHA_BUMP' 'ALPHA_BUMPN' 'COLOR_NULL'
    @property
    def ras_swap(self) -> int: ...
    @property
    def tex_swap(self) -> int: ...
    @property
    def texture(self) -> int | None: ...  # the TEX1 index sampled
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class AlphaCompare(tuple[Any, ...]):
    """The alpha test comp0(a, ref0) op comp1(a, ref1). A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def comp0(self) -> str: ...  # 'NEVER' 'LESS' 'EQUAL' 'LEQUAL' 'GREATER' 'NEQUAL' 'GEQUAL' 'ALWAYS'
    @property
    def ref0(self) -> int: ...
    @property
    def op(self) -> str: ...  # 'AND' 'OR' 'XOR' 'XNOR'
    @property
    def comp1(self) -> str: ...
    @property
    def ref1(self) -> int: ...
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class Blend(tuple[Any, ...]):
    """The blend mode. A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def type(self) -> str: ...  # 'NONE' 'BLEND' 'LOGIC' 'SUBTRACT'
    @property
    def src(self) -> str: ...  # 'ZERO' 'ONE' 'DSTCLR' 'INVDSTCLR' 'SRCALPHA' 'INVSRCALPHA' 'DSTALPHA' 'INVDSTALPHA'
    @property
    def dst(self) -> str: ...  # 'ZERO' 'ONE' 'SRCCLR' 'INVSRCCLR' 'SRCALPHA' ...
    @property
    def logic_op(self) -> str: ...  # 'CLEAR' 'AND' ... 'SET'
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class ColorChannel(tuple[Any, ...]):
    """A colour channel control. A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def lighting(self) -> bool: ...
    @property
    def material_source(self) -> str: ...  # 'REG' 'VTX'
    @property
    def ambient_source(self) -> str: ...  # 'REG' 'VTX'
    @property
    def light_mask(self) -> int: ...  # bit n: light n
    @property
    def diffuse(self) -> str: ...  # 'NONE' 'SIGN' 'CLAMP'
    @property
    def attenuation(self) -> str: ...  # 'NONE' 'SPEC' 'SPOT'
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class TexGen(tuple[Any, ...]):
    """A texture coordinate generator. A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def type(self) -> str: ...  # 'MTX3x4' 'MTX2x4' 'BUMP0'-'BUMP7' 'SRTG'
    @property
    def source(self) -> str: ...  # 'POS' 'NRM' 'BINRM' 'TANGENT' 'TEX0'-'TEX7' 'TEXCOORD0'-'TEXCOORD6' 'COLOR0' 'COLOR1'
    @property
    def matrix(self) -> str | int: ...  # 'PNMTX0'-'PNMTX9' 'TEXMTX0'-'TEXMTX9' 'IDENTITY'; post texgens: the int
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class TexMatrix(tuple[Any, ...]):
    """A MAT3 texture matrix record. A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def projection(self) -> str: ...  # 'MTX3x4' 'MTX2x4'
    @property
    def mode(self) -> int: ...  # info bits 0-6
    @property
    def maya(self) -> bool: ...
    @property
    def center(self) -> tuple[float, float, float]: ...
    @property
    def scale(self) -> tuple[float, float]: ...
    @property
    def rotation(self) -> int: ...  # s16, 65536 per turn
    @property
    def translation(self) -> tuple[float, float]: ...
    @property
    def effect(self) -> tuple[float, ...]: ...  # 16, row-major
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class ZMode(tuple[Any, ...]):
    """Depth test and write. A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def test(self) -> bool: ...
    @property
    def func(self) -> str: ...  # a compare name
    @property
    def write(self) -> bool: ...
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class Fog(tuple[Any, ...]):
    """The MAT3 fog record. A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def type(self) -> int: ...
    @property
    def adjust(self) -> bool: ...
    @property
    def center(self) -> int: ...
    @property
    def start_z(self) -> float: ...
    @property
    def end_z(self) -> float: ...
    @property
    def near_z(self) -> float: ...
    @property
    def far_z(self) -> float: ...
    @property
    def color(self) -> tuple[int, int, int, int]: ...
    @property
    def adjust_table(self) -> tuple[int, ...]: ...
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class NbtScale(tuple[Any, ...]):
    """The NBT scale record. A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def enabled(self) -> bool: ...
    @property
    def scale(self) -> tuple[float, float, float]: ...
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class Indirect(tuple[Any, ...]):
    """The MAT3 indirect record of a material. A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def enabled(self) -> bool: ...
    @property
    def count(self) -> int: ...  # type: ignore[override]  # (the field hides tuple's count method)
    @property
    def orders(self) -> tuple[tuple[int, int], ...]: ...  # (texcoord, texmap) x 4
    @property
    def matrices(self) -> tuple[tuple[tuple[float, ...], int], ...]: ...  # (2x3 row-major, exponent) x 3
    @property
    def scales(self) -> tuple[tuple[int, int], ...]: ...
    @property
    def stages(self) -> tuple[IndirectStage, ...]: ...  # 16
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class IndirectStage(tuple[Any, ...]):
    """The indirect setup of one TEV stage. A struct sequence (a named, immutable tuple)."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def ind_stage(self) -> int: ...
    @property
    def format(self) -> int: ...
    @property
    def bias(self) -> int: ...
    @property
    def matrix(self) -> int: ...
    @property
    def wrap_s(self) -> int: ...
    @property
    def wrap_t(self) -> int: ...
    @property
    def add_prev(self) -> bool: ...
    @property
    def utc_lod(self) -> bool: ...
    @property
    def alpha(self) -> int: ...
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class Material:
    """One MAT3 material of a J3D Model, read-only: its whole GX state (docs/materials.md)."""

    @property
    def index(self) -> int: ...
    @property
    def name(self) -> str | None: ...
    @property
    def entry(self) -> int: ...
    @property
    def mode(self) -> int: ...
    @property
    def cull_mode(self) -> int: ...  # 0 none, 1 front, 2 back, 3 all
    @property
    def tev_stages(self) -> tuple[TevStage, ...]: ...
    @property
    def swap_tables(self) -> tuple[RGBA, RGBA, RGBA, RGBA]: ...  # source channel of r, g, b, a
    @property
    def konst_colors(self) -> tuple[RGBA, RGBA, RGBA, RGBA]: ...
    @property
    def tev_colors(self) -> tuple[RGBA, RGBA, RGBA, RGBA]: ...  # s16 as stored; slot i loads REGi, PREV from slot 3
    @property
    def alpha_compare(self) -> AlphaCompare: ...
    @property
    def blend(self) -> Blend: ...
    @property
    def channels(self) -> tuple[ColorChannel, ColorChannel, ColorChannel, ColorChannel]: ...  # C0, A0, C1, A1
    @property
    def channel_count(self) -> int: ...
    @property
    def texgens(self) -> tuple[TexGen, ...]: ...
    @property
    def post_texgens(self) -> tuple[TexGen | None, ...]: ...
    @property
    def tex_matrices(self) -> tuple[TexMatrix | None, ...]: ...  # 8
    @property
    def textures(self) -> tuple[int, ...]: ...  # TEX1 index per texmap, -1 unused
    @property
    def mat_colors(self) -> tuple[RGBA, RGBA]: ...
    @property
    def amb_colors(self) -> tuple[RGBA, RGBA]: ...
    @property
    def z_mode(self) -> ZMode: ...
    @property
    def z_comp_loc(self) -> int: ...
    @property
    def dither(self) -> int: ...
    @property
    def nbt_scale(self) -> NbtScale: ...
    @property
    def fog(self) -> Fog | None: ...
    @property
    def indirect(self) -> Indirect | None: ...
    def evaluate(self, tex: Sequence[Buffer | None], ras: Sequence[Buffer | None],
                 konst: Sequence[Sequence[int]] | None = None,
                 tev_colors: Sequence[Sequence[int]] | None = None) -> tuple[bytes, bytes]: ...
    def channel_color(self, channel: int | Literal["COLOR0A0", "COLOR1A1"], vertex_color: Sequence[int],
                      light: float = 0.0) -> RGBA: ...
    # the first release's tuples (deprecated; docs/materials.md)
    @property
    def stages(self) -> tuple[tuple[int, int, int, int], ...]: ...  # texcoord, texmap, channel, texture
    @property
    def stage_textures(self) -> tuple[int, ...]: ...
    @property
    def colors(self) -> tuple[RGBA | None, RGBA | None]: ...
    @property
    def ambient_colors(self) -> tuple[RGBA | None, RGBA | None]: ...
    @property
    def texgens_raw(self) -> tuple[tuple[int, int, int] | None, ...]: ...
    @property
    def channels_raw(self) -> tuple[tuple[int, ...] | None, ...]: ...
    @property
    def tev_colors_raw(self) -> tuple[RGBA | None, ...]: ...
    @property
    def konst_colors_raw(self) -> tuple[RGBA | None, ...]: ...
    @property
    def alpha_compare_raw(self) -> tuple[int, int, int, int, int]: ...
    @property
    def blend_raw(self) -> tuple[int, int, int, int] | None: ...
    @property
    def z_mode_raw(self) -> tuple[int, int, int] | None: ...


# Model.replace_mesh / add_mesh arguments: any buffer or iterable of numbers
_Floats: TypeAlias = Buffer | Iterable[float]
_Ints: TypeAlias = Buffer | Iterable[int]
_Channels: TypeAlias = Sequence[Buffer | Iterable[float]]


class Model:
    """A model file's skeleton, geometry, materials and textures, read-only (gameanim.load_model)."""

    @property
    def format(self) -> Literal["bmd", "bdl", "sm64ds_bmd", "bk_model"]: ...
    @property
    def family(self) -> Literal["j3d", "sm64ds", "bk"]: ...
    @property
    def compression(self) -> str | None: ...
    @property
    def bones(self) -> tuple[Bone, ...]: ...
    @property
    def calc(self) -> Literal["basic", "softimage", "maya"] | None: ...
    @property
    def info(self) -> dict[str, Any]: ...
    @property
    def chunks(self) -> list[tuple[str, bytes]]: ...
    @property
    def inverse_binds(self) -> list[tuple[float, ...]]: ...
    @property
    def meshes(self) -> tuple[Mesh, ...]: ...  # J3D; decoded on first use
    @property
    def textures(self) -> tuple[Texture, ...]: ...  # J3D
    @property
    def materials(self) -> tuple[Material, ...]: ...  # J3D
    def world_matrices(self, anim: Animation | None = None, frame: Frames = 0.0) -> array[float]: ...
    # the file: unedited and in its own compression, the input bytes (docs/model_writer.md)
    def to_bytes(self, compression: str | None = ..., *, regenerate: bool = False) -> bytes: ...
    def save(self, path: FilePath, *, compression: str | None = ..., regenerate: bool = False) -> None: ...
    def set_material_colors(
        self,
        i: int,
        colors: Sequence[Sequence[int]] | None = None,
        ambient_colors: Sequence[Sequence[int]] | None = None,
        tev_colors: Sequence[Sequence[int]] | None = None,
        konst_colors: Sequence[Sequence[int]] | None = None,
    ) -> None: ...
    def _add_material_copy(self, k: int, name: str | None = None) -> int: ...
    def _encode_mat3(self, regenerate: bool = True) -> bytes: ...
    def replace_texture(
        self,
        index: int,
        rgba: Buffer,
        width: int,
        height: int,
        format: str | None = None,
        *,
        palette_format: Literal["IA8", "RGB565", "RGB5A3"] | None = None,
    ) -> None: ...
    # issue 34 (docs/model_writer.md, "Meshes"): arrays in Model.meshes' layouts
    def replace_mesh(self, i: int, positions: _Floats, triangles: _Ints, normals: _Floats | None = None,
                     colors: _Channels | None = None, uvs: _Channels | None = None, joints: _Ints | None = None,
                     weights: _Floats | None = None) -> None: ...
    def add_mesh(self, material: int, positions: _Floats, triangles: _Ints, normals: _Floats | None = None,
                 colors: _Channels | None = None, uvs: _Channels | None = None, joints: _Ints | None = None,
                 weights: _Floats | None = None) -> None: ...
    def _replace_chunk(self, index: int, data: Buffer, /) -> None: ...


# ---------------------------------------------------------------- archives (RARC / CRAR)

ARCHIVE_EXTENSIONS: Final[tuple[str, ...]]  # ('.arc', '.szs', '.szp', '.carc')


class ArchiveMember(tuple[str, int, str | None, int, int, int, int]):
    """One member of an Archive (infolist()), a struct sequence."""
    n_fields: Final[int]
    n_sequence_fields: Final[int]
    n_unnamed_fields: Final[int]
    @property
    def name(self) -> str: ...  # '/'-separated, relative to the root
    @property
    def size(self) -> int: ...  # bytes as stored
    @property
    def compression(self) -> Literal["yaz0", "yay0"] | None: ...  # the member's own (attribute bits 0x04 / 0x80)
    @property
    def id(self) -> int: ...
    @property
    def attributes(self) -> int: ...
    @property
    def offset(self) -> int: ...  # in the file data
    @property
    def entry(self) -> int: ...  # index in the file entry table
    def count(self, value: Any, /) -> int: ...  # (tuple's)
    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = ..., /) -> int: ...  # (tuple's)


class Archive:
    """An archive opened by open_archive() (docs/formats/rarc.md)."""
    @property
    def compression(self) -> str | None: ...  # the outer wrapper
    @property
    def root(self) -> str: ...
    @property
    def format(self) -> Literal["RARC", "CRAR"]: ...
    def namelist(self) -> list[str]: ...
    def infolist(self) -> list[ArchiveMember]: ...
    def read(self, name: str, /) -> bytes: ...
    def replace(self, name: str, data: Buffer, /) -> None: ...
    def to_bytes(self, compression: str | None = ...) -> bytes: ...
    def save(self, path: FilePath, *, compression: str | None = ...) -> None: ...
    def is_modified(self) -> bool: ...
    def __len__(self) -> int: ...
    def __contains__(self, name: object) -> bool: ...


def open_archive(source: Source, *, max_decoded_size: int | None = None) -> Archive: ...

# ---------------------------------------------------------------- functions

def load(
    source: Source, *, keyless_rule: KeylessRule | None = "base", max_decoded_size: int | None = None
) -> Animation: ...
class ModelFormatInfo(TypedDict):
    name: str
    description: str
    extensions: tuple[str, ...]


def model_formats() -> dict[str, ModelFormatInfo]: ...
def load_model(source: Source, *, max_decoded_size: int | None = None) -> Model: ...
def check_model(data: Source | Model, *, max_decoded_size: int | None = None) -> list[str]: ...
def detect(source: Source, /, *, max_decoded_size: int | None = None) -> tuple[str, str | None]: ...
def save(
    animation: Animation,
    path: FilePath,
    /,
    *,
    compression: str | None = ...,
    tolerance: float = 0.0,
    reencode: Reencode | None = None,
) -> None: ...
def write_atomic(path: FilePath, data: bytes, /) -> None: ...
@overload
def frame_at(ticks: float, duration: float, loop: LoopMode | int, rate: float = 1.0) -> float: ...
@overload
def frame_at(ticks: Iterable[float] | Buffer, duration: float, loop: LoopMode | int, rate: float = 1.0) -> array[float]: ...
def bake_pose(
    animation: Animation,
    bones: Iterable[tuple[Target, Matrix | None, Matrix | None]],
    frames: Frames,
    translation_scale: float = 1.0,
    time_scale: float = 1.0,
    time_offset: float = 0.0,
    *,
    collapse: bool = False,
) -> list[PoseBuffers]: ...
@overload
def evaluate_fcurve(co: Floats, handle_left: Floats, handle_right: Floats, interpolation: Codes, frames: Frames,
                    extrapolation: Extrapolation = "CONSTANT", *, slopes: Literal[False] = False) -> array[float]: ...
@overload
def evaluate_fcurve(co: Floats, handle_left: Floats, handle_right: Floats, interpolation: Codes, frames: Frames,
                    extrapolation: Extrapolation = "CONSTANT", *,
                    slopes: Literal[True]) -> tuple[array[float], array[float], array[float]]: ...
def local_from_basis(
    pre: Matrix | None,
    post: Matrix | None,
    location: Sequence[Floats],
    rotation: Sequence[Floats],
    scale: Sequence[Floats],
    rotation_mode: str = "QUATERNION",  # or 'AXIS_ANGLE', or an Euler order such as 'XYZ'
    translation_scale: float = 1.0,
) -> LocalTransform: ...
def formats() -> dict[str, FormatTraits]: ...
def compressions() -> list[str]: ...
def compression_extensions() -> dict[str, tuple[str, ...]]: ...
def compress(name: str, data: Buffer, /) -> bytes: ...
def decompress(name: str, data: Buffer, /, *, max_decoded_size: int | None = None) -> bytes: ...
def decode_texture(
    data: Buffer,
    format: str,
    width: int,
    height: int,
    *,
    palette: Buffer | None = None,
    palette_format: Literal["IA8", "RGB565", "RGB5A3"] = "IA8",
) -> bytes: ...
def encode_texture(
    rgba: Buffer,
    width: int,
    height: int,
    format: str,
    palette_format: Literal["IA8", "RGB565", "RGB5A3"] | None = None,
    mip_count: int = 1,
) -> tuple[bytes, bytes | None]: ...
