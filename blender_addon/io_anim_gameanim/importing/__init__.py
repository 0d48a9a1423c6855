"""The import layer: files in, actions, armatures and mapping chains out
(importer), new armatures and a file's plan onto a rig (armature), the
material chains (material), writing curve plans (curve_writer) and the
report (report).  Imports the shared layer, compat and native."""
