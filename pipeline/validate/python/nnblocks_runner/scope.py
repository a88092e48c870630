# The default scope a block builds under (docs/validate.md, "Default scope"). OpenMMLab's models build their parts
# from config dicts through a registry tree: mmengine's root registry, one child per package (scope `mmocr`,
# `mmdet`...). A root registry asked for `TextRecogDataPreprocessor` finds it only in the child of the current
# default scope, which the repositories' own tools set before they build anything (`init_default_scope('mmocr')`,
# from a config's `default_scope = 'mmocr'`). Without it, 15 blocks of the paper's corpus failed with
# "TextRecogDataPreprocessor is not in the mmengine::model registry". So a block whose package has a registry of its
# own builds under its package's scope, in its child (the block's run) and in the original's (fidelity), as its
# repository's tools would build it.


def _default_scope_class(namespace):
    """mmengine's `DefaultScope` (a ManagerMixin whose instances name the current scope) among a namespace's values,
    found by what it does rather than its name (an emitted module may have renamed it); or None."""
    for value in list(namespace.values()):
        if isinstance(value, type) and all(hasattr(value, a) for a in ("overwrite_default_scope", "get_instance",
                                                                        "get_current_instance")):
            return value
    return None


def _has_scope(namespace, package):
    """Whether a registry of the namespace (an object with mmengine's `_scope` and `_children`) has scope `package`,
    or a registry of its tree does."""
    for value in list(namespace.values()):
        if isinstance(value, type):
            continue
        try:
            scope, children = getattr(value, "_scope", None), getattr(value, "_children", None)
        except Exception:
            continue
        if not isinstance(children, dict):
            continue
        if scope == package or package in children:
            return True
    return False


def enter(namespaces, package):
    """Makes `package` the current default scope, when one of the namespaces holds a DefaultScope and a registry of
    one of them has that scope (a block of `projects.ABCNet` has none: nothing is set); returns the scope set, or
    None. Never raises: a block without a scope builds as before."""
    try:
        cls = next((c for c in map(_default_scope_class, namespaces) if c is not None), None)
        if cls is None or not any(_has_scope(n, package) for n in namespaces):
            return None
        cls.get_instance("nnblocks", scope_name=package)
        return package
    except Exception:
        return None
