"""Game animation codecs: Nintendo J3D BCK/BTK, Super Mario 64 DS BCA,
Banjo-Kazooie animations and SWTOR JBA.

Decodes losslessly (an unedited file encodes back to the same bytes),
evaluates curves as the games do, and converts to and from one
format-neutral clip of tracks.  The codecs live in the C extension
`gameanim._core`; this package re-exports it and adds the command line tool
(`gameanim.cli`, also `python -m gameanim`) and what is derived from the C
registry of formats.
"""
from ._core import (  # noqa: F401  (the public API is the C core's)
    ARCHIVE_EXTENSIONS,
    BEZIER,
    CONSTANT,
    LIMITS,
    LINEAR,
    LOOP_MODES,
    AlphaCompare,
    Animation,
    Archive,
    ArchiveMember,
    Blend,
    Bone,
    ColorChannel,
    EncodeError,
    Fog,
    FormatError,
    Indirect,
    IndirectStage,
    Material,
    Mesh,
    Model,
    NbtScale,
    PrecisionWarning,
    TevOp,
    TevStage,
    TexGen,
    TexMatrix,
    Texture,
    Track,
    ZMode,
    __version__,
    bake_pose,
    check_model,
    compress,
    compression_extensions,
    compressions,
    decode_texture,
    decompress,
    encode_texture,
    detect,
    evaluate_fcurve,
    formats,
    frame_at,
    load,
    load_model,
    local_from_basis,
    model_formats,
    open_archive,
    save,
    write_atomic,
)

__all__ = [
    "Animation", "Track", "Model", "Bone", "Mesh", "Texture", "Material",
    "TevStage", "TevOp", "AlphaCompare", "Blend", "ColorChannel", "TexGen", "TexMatrix", "ZMode", "Fog", "NbtScale",
    "Indirect", "IndirectStage", "FormatError", "EncodeError", "PrecisionWarning",
    "load", "load_model", "check_model", "save", "detect", "write_atomic", "frame_at", "bake_pose", "evaluate_fcurve", "local_from_basis",
    "formats", "model_formats", "compressions", "compression_extensions", "compress", "decompress", "decode_texture", "encode_texture",
    "file_extensions",
    "Archive", "ArchiveMember", "open_archive", "ARCHIVE_EXTENSIONS",
    "CONSTANT", "LINEAR", "BEZIER", "LOOP_MODES", "LIMITS", "__version__",
]


def file_extensions() -> tuple[str, ...]:
    """Every file extension that names a file gameanim may read: each
    format's own (formats()[name]['extensions']) and each compression
    wrapper's (compression_extensions()), lower case, in registry order."""
    seen: list[str] = []
    for traits in formats().values():
        seen += [e for e in traits["extensions"] if e not in seen]
    for exts in compression_extensions().values():
        seen += [e for e in exts if e not in seen]
    return tuple(seen)
