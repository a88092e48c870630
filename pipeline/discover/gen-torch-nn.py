# Regenerates torch-nn.json: every torch.nn Module subclass under its public and defining names, and whether it
# has a forward of its own below Module (ModuleList/ModuleDict don't). Run: /usr/bin/python3 pipeline/discover/gen-torch-nn.py
import importlib, inspect, json, pkgutil, sys
import torch
import torch.nn as nn

names = {}
def visit(modname):
    try:
        mod = importlib.import_module(modname)
    except Exception:
        return
    for attr, obj in vars(mod).items():
        if inspect.isclass(obj) and issubclass(obj, nn.Module):
            has_forward = any('forward' in vars(k) for k in obj.__mro__ if k is not nn.Module and k is not object)
            names[f'{modname}.{attr}'] = has_forward
for m in ['torch.nn', 'torch.nn.modules', 'torch.nn.parallel', 'torch.nn.utils.parametrize', 'torch.nn.quantized', 'torch.nn.intrinsic', 'torch.nn.qat']:
    visit(m)
for info in pkgutil.iter_modules(nn.modules.__path__, 'torch.nn.modules.'):
    visit(info.name)
names.pop('torch.nn.Module', None)
out = {'torchVersion': torch.__version__, 'root': ['torch.nn.Module', 'torch.nn.modules.Module', 'torch.nn.modules.module.Module'],
       'classes': {k: {'forward': v} for k, v in sorted(names.items()) if not k.endswith('.Module')}}
with open(sys.argv[1] if len(sys.argv) > 1 else 'pipeline/discover/torch-nn.json', 'w') as f:
    json.dump(out, f, indent=1, sort_keys=True)
print(len(out['classes']))
