"""The model import's material build (issue 31, Speed): a model of 100
4-stage materials in 10 TEV configurations (benchdata.material_set) and
its materials built (importing/materials_from_model.build_materials) in a
fresh session, so that the 10 groups and their shared sub-groups are built
too; then the whole import of the 5,000-vertex, 40-joint model
(benchdata.mesh_model_file) carrying those 100 materials, and the share
of it that the material build takes.  Targets: <= 0.5 s in 5.0, <= 20% of
that import.

    .venv/main/bin/python bench/bench_materials.py --gameanim build/lib
    blender -b --factory-startup --python bench/bench_materials.py -- --gameanim build/lib
"""
import gc
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
if "--gameanim" in argv:
    sys.path.insert(0, os.path.abspath(argv[argv.index("--gameanim") + 1]))
REPEAT = int(argv[argv.index("--repeat") + 1]) if "--repeat" in argv else 5
for d in (os.path.join(ROOT, "blender_addon"), HERE):
    if d not in sys.path:
        sys.path.insert(0, d)

import bpy  # noqa: E402

import benchdata  # noqa: E402
import gameanim  # noqa: E402
from io_anim_gameanim import api  # noqa: E402
from io_anim_gameanim.importing import materials_from_model as mfm  # noqa: E402


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    gc.collect()


def main():
    mats, texs = benchdata.material_set(100, 10)
    data = benchdata.mesh_model_file(materials=mats, textures=texs)
    path = os.path.join(tempfile.mkdtemp(prefix="bench_materials_"), "materials_100.bmd")
    with open(path, "wb") as f:
        f.write(data)
    model = gameanim.load_model(path)
    builds, groups = [], None
    for _ in range(REPEAT):
        reset()
        t = time.perf_counter()
        built, _notes = mfm.build_materials(model, "bench")
        builds.append(time.perf_counter() - t)
        groups = {bm.node_tree.nodes[mfm.GROUP_NODE].node_tree.name for bm in built}
        subs = len(bpy.data.node_groups) - len(groups)
    imports = []
    for _ in range(REPEAT):
        reset()
        t = time.perf_counter()
        res = api.import_files([path])
        imports.append(time.perf_counter() - t)
        assert all(f.ok for f in res.report.files), res.report.text()[:2000]
    nverts = sum(len(m.positions) // 3 for m in model.meshes)
    build, whole = statistics.median(builds), statistics.median(imports)
    print(f"Blender {bpy.app.version_string}: 100 materials of {len(groups)} configurations "
          f"({len(groups)} material groups + {subs} shared sub-groups): build {build * 1e3:.0f} ms "
          f"(median of {REPEAT}; best {min(builds) * 1e3:.0f} ms); whole import of the {nverts}-position model "
          f"with them {whole * 1e3:.0f} ms (best {min(imports) * 1e3:.0f} ms): the materials take "
          f"{100.0 * build / whole:.0f}% of it")


main()
