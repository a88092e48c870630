# Regenerates torch-calls.json: the method names torch calls on its own modules and autograd functions, which a
# block may override without its own code ever naming them (docs/resolve.md, "Methods"). That is every public
# method of torch.nn.Module (what a user of a block calls: to, train, eval, state_dict...), every name torch.nn's
# and torch.autograd's own classes read off `self`/`cls`/`ctx` or by a literal getattr/hasattr and also define
# (`_conv_forward`, `_check_input_dim`, `_load_from_state_dict`, `reset_parameters`...), and `symbolic`, which
# torch.onnx looks up on an autograd Function by name, and what the autograd engine calls from C++ on a Function
# (`backward`, `jvp`, `vjp`, `setup_context`, `vmap`: no Python source reads them). Run it with the test Python
# (`node pipeline/setup.mjs --for test` prints it): <python> pipeline/resolve/gen-torch-calls.py
import ast, importlib, inspect, json, pkgutil, sys, textwrap
import torch
import torch.nn as nn

# Called by the autograd engine (C++) on a Function subclass, never read in Python.
AUTOGRAD_ENGINE = {'backward', 'jvp', 'vjp', 'setup_context', 'vmap'}

classes = set()
def visit(modname):
    try:
        mod = importlib.import_module(modname)
    except Exception:
        return
    for obj in vars(mod).values():
        if inspect.isclass(obj) and (issubclass(obj, nn.Module) or issubclass(obj, torch.autograd.Function)):
            classes.update(k for k in obj.__mro__ if k is not object)
for m in ['torch.nn', 'torch.nn.modules', 'torch.nn.parallel', 'torch.autograd', 'torch.autograd.function']:
    visit(m)
for info in pkgutil.iter_modules(nn.modules.__path__, 'torch.nn.modules.'):
    visit(info.name)

defined, read = set(), set()
for k in classes:
    defined.update(vars(k))
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(k)))
    except (OSError, TypeError):
        continue  # a C-defined base (torch._C._FunctionBase)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ('self', 'cls', 'ctx'):
            read.add(node.attr)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ('getattr', 'hasattr')
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            read.add(node.args[1].value)
public = {n for n in vars(nn.Module) if not n.startswith('_')}
names = sorted(((read & defined) | public | {'symbolic'} | AUTOGRAD_ENGINE) - {n for n in defined if n.startswith('__') and n.endswith('__')})
out = {'torchVersion': torch.__version__, 'names': names}
with open(sys.argv[1] if len(sys.argv) > 1 else 'pipeline/resolve/torch-calls.json', 'w') as f:
    json.dump(out, f, indent=1)
print(len(names))
