"""Mesh and instance order of a built scene: Falcor's mesh groups (one BLAS each).

Falcor groups meshes for ray tracing and numbers meshes and instances group by group:
  1. the static (pre-transformed) meshes, all in one group;
  2. the other single-instance meshes, one group per node;
  3. meshes placed by several nodes, one group per identical set of nodes (sets in ascending
     order); such a group lists its instances node by node, each node placing every mesh.
The RTDontMerge* build flags give each mesh of the matching kind a group of its own. Falcor keeps
the per-node groups of (2) in a hash map, whose order is unspecified; we take them by node ID.
"""
from __future__ import annotations

from .scene_builder import SceneBuilderFlags


def mesh_groups(placements: list, static: set, flags: SceneBuilderFlags) -> list[list[int]]:
    """Groups of mesh indices, in Falcor's group order. `placements[i]`: sorted unique nodes of mesh i."""
    static_group = [i for i in range(len(placements)) if i in static]
    by_node: dict[int, list] = {}
    by_node_set: dict[tuple, list] = {}
    for i, nodes in enumerate(placements):
        if i in static:
            continue
        if len(nodes) == 1:
            by_node.setdefault(nodes[0], []).append(i)
        else:
            by_node_set.setdefault(tuple(nodes), []).append(i)

    def add(groups: list, meshes: list, split_flag: SceneBuilderFlags) -> None:
        groups.extend([[i] for i in meshes] if flags & split_flag else [meshes])

    groups: list = []
    if static_group:
        add(groups, static_group, SceneBuilderFlags.RTDontMergeStatic)
    for node in sorted(by_node):
        add(groups, by_node[node], SceneBuilderFlags.RTDontMergeDynamic)
    for node_set in sorted(by_node_set):
        add(groups, by_node_set[node_set], SceneBuilderFlags.RTDontMergeInstanced)
    return groups


def order_meshes_and_instances(placements: list, static: set, flags: SceneBuilderFlags) -> tuple[list, list]:
    """(old mesh index of each new mesh ID, instances as (new mesh ID, node ID) in instance order)."""
    groups = mesh_groups(placements, static, flags)
    order = [i for group in groups for i in group]
    new_id = {old: new for new, old in enumerate(order)}
    instances: list = []
    for group in groups:  # the meshes of a group share their placing nodes
        for node in placements[group[0]]:
            instances.extend((new_id[i], node) for i in group)
    return order, instances
