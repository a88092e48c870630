# The validate runner's modules, one concern each (docs/validate.md, "The runner"):
#   protocol     capped text and JSON lines: what crosses a pipe and how big it may be
#   containment  what the forked child does to itself before upstream code runs (limits, audit hook, blocker),
#                and what the worker does after it (sweep every process, wipe /tmp)
#   classify     exception -> failure class, by exception type and module name, as one ordered table
#   replay       the replay protocol: inputs, build, forward, backward (what a reader re-runs)
#   measure      counts, checksums and the module tree, through references a block can't patch
#   flops        MACs of a meta-device forward, by torch's own FLOP counter (torch >= 2.1), references taken early
#   warm         what every child would otherwise import itself (torch._dynamo), imported once by the worker
#   infer        constructor arguments guessed for blocks with no recipe
#   init_source  what the constructor's source (ast) says of each parameter: a sequence, a count, an object of
#                attributes, a table key; followed into the classes it is handed to, and into the base by **kwargs
#   inputs       forward input specs guessed from the forward's signature, the built layers and forward_source
#   sources      the ast of the block's classes, functions and modules, each file parsed once
#   forward_source  what the forward's source (ast) says: dict keys it reads, the width each argument needs
#   repair       error-guided input repair: the width a torch error names
#   asserted     assertion-guided input repair: the failed `assert` read where it failed, evaluated in its frame
#   search       the recipe search (candidates x inputs, two rounds, meta-device probes)
#   shares       time shares of a block's budget, and the alarm that holds an attempt to its share
#   canonical    canonical figures of builder configurations (parameters, output shapes, MACs)
#   twins        a search attempt's fresh module copies, and its meta-device twin that checks inputs first
#   part         composite recipes: the block found in a model a builder makes, fed what that model passes it
#   stages       one block's stages as explicit results, then fidelity
#   supervise    the worker's side of one block: fork, deadline, read the child's pipes, compose the record
#   pid1         the worker as its sandbox's pid 1: catches no signal, and checks after every block that the block
#                changed nothing of the worker (limits, scheduling) and left no SysV IPC object
#   witness      what the kernel saw of a block, read outside its process: what the audit hook may have missed,
#                whether a timeout was the machine's
# runner.py (next to this folder) is the process entry: the protocol with the TypeScript side.
