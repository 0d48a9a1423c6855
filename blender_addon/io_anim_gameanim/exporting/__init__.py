"""The export layer: actions in, files out (exporter), skeletal actions
(export_armature), material actions (export_material), the pieces both
share (export_tracks) and reading curves back (readback).  Imports only
the shared layer, compat and native, never the import layer."""
