"""The machinery every op stands on: the :class:`~lucid.ops.core.base.Op` base classes and
call path, schemas, the registry, graph mode's ``F`` (:mod:`~lucid.ops.core.graph_ns`),
casts and copies, device moves and the Tensor-method binding."""
