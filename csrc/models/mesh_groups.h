/* A mesh's vertex groups (Mesh.groups, docs/meshes.md): the vertices of
 * each distinct (joint, non-zero weight) of a ga_mesh, ready for one
 * VertexGroup.add each.  Plain C, no Python. */
#ifndef GAMEANIM_MESH_GROUPS_H
#define GAMEANIM_MESH_GROUPS_H

#include "model.h"

typedef struct ga_vertex_group {
    uint32_t joint;
    float weight;
    size_t first, count; /* its vertices: verts[first .. first + count) */
} ga_vertex_group;

/* The groups of s ordered by joint then weight (weights compared by value,
 * equal values by bits), each group's vertices ascending, all in one
 * array *verts.  Both outputs are malloc'ed (NULL when there is no group);
 * free them with free(). */
int ga_mesh_vertex_groups(const ga_mesh *s, ga_vertex_group **groups, size_t *ngroups, int32_t **verts,
                          ga_error *err);

#endif
