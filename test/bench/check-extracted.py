# Checks that extracted modules stand alone: parse + compile every file; import each with the source's own
# packages blocked by a meta-path finder; build with default arguments and count parameters. In 'original' mode it
# imports the upstream classes instead (nothing blocked) and builds them the same way, for comparison.
import ast, importlib, importlib.abc, json, sys, warnings

warnings.simplefilter('ignore')
mode, manifest_path, blocked = sys.argv[1], sys.argv[2], set(sys.argv[3].split(',')) if len(sys.argv) > 3 else set()
with open(manifest_path) as f:
    entries = json.load(f)['blocks']

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        # Any other name falls through (None): the next finder decides.
        if name.split('.')[0] in blocked:
            raise ImportError(f'import of {name} is blocked')

if mode == 'extracted':
    sys.meta_path.insert(0, Refuse())

def load_original(block_id):
    parts = block_id.split(':', 1)[1].split('.')
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module('.'.join(parts[:i]))
            break
        except ImportError:
            continue
    for p in parts[i:]:
        obj = getattr(obj, p)
    return obj

out = {}
for e in entries:
    r = {}
    try:
        if mode == 'extracted':
            with open(e['file'], encoding='utf-8') as f:
                src = f.read()
            ast.parse(src)
            r['parse'] = 'ok'
            compile(src, e['file'], 'exec')
            r['compile'] = 'ok'
            if e['importRoot'] not in sys.path:
                sys.path.insert(0, e['importRoot'])
            cls = getattr(importlib.import_module(e['module']), e['className'])
        else:
            cls = load_original(e['id'])
        r['import'] = 'ok'
    except BaseException as ex:
        r['error'] = f'{type(ex).__name__}: {str(ex).splitlines()[0][:160] if str(ex) else ""}'
        out[e['id']] = r
        continue
    try:
        r['params'] = sum(p.numel() for p in cls().parameters())
    except BaseException as ex:
        r['buildError'] = type(ex).__name__
    out[e['id']] = r
print(json.dumps(out))
