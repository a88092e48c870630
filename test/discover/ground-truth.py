# Ground truth for discovery: imports every torchvision module with the real Python and lists the classes defined
# there that subclass torch.nn.Module and have their own or an inherited forward (not Module's placeholder).
import importlib, inspect, json, pkgutil, sys, warnings
import torch.nn as nn

warnings.simplefilter('ignore')
pkg = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else 'torchvision')
found, failed = set(), {}
names = [pkg.__name__] + [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.')]
for name in names:
    try:
        mod = importlib.import_module(name)
    except BaseException as e:  # a module that fails to import is reported, not fatal
        failed[name] = f'{type(e).__name__}: {e}'
        continue
    for obj in vars(mod).values():
        if not inspect.isclass(obj) or obj.__module__ != name:
            continue
        if issubclass(obj, nn.Module) and obj is not nn.Module and obj.forward is not nn.Module.forward:
            found.add(f'{name}.{obj.__qualname__}')
    # Classes nested in classes are reachable too.
    for obj in list(vars(mod).values()):
        if inspect.isclass(obj) and obj.__module__ == name:
            for inner in vars(obj).values():
                if inspect.isclass(inner) and issubclass(inner, nn.Module) and inner.__module__ == name and inner.forward is not nn.Module.forward:
                    found.add(f'{name}.{inner.__qualname__}')
print(json.dumps({'blocks': sorted(found), 'failedImports': failed}))
