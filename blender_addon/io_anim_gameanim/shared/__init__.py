"""What import and export share: the formats' traits (formats), the
options (options), rig matching (rig_match), rest poses and axes (rest),
how a clip maps onto a rig (rig_mapping) and onto a material's mapping
chain (material_mapping), curve plans (curve_plans) and what an imported
action stores for a lossless export (imported_action).  Reads Blender data,
never writes it; imports only compat, native and itself."""
