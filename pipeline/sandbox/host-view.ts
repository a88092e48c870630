// What of the host's /sys and /proc a validate sandbox shows. Not /sys as a whole: it tells a block the host's MAC
// addresses (/sys/class/net), disks (/sys/block), cgroup memory use (/sys/fs/cgroup) and every PCI device. Kept:
// - /sys/devices/system/cpu, always: torch's cpuinfo reads the CPU topology there (possible, present, online,
//   cpu*/topology, caches) and prints "Error in cpuinfo" and guesses without it;
// - for GPU runs, what the NVIDIA stack reads: /sys/devices/system/node (the CUDA driver counts NUMA nodes there
//   when it creates a context; on NUMA-enabled platforms such as GH200 it crashes without them, gVisor #12876),
//   /sys/module/nvidia and nvidia_uvm (driver version and parameters), and each NVIDIA PCI device's own folder
//   with its /sys/bus/pci/devices link (NVML and the driver read its numa_node, local_cpulist and ids by bus id).
//   No other PCI device, bridge or driver. Its device nodes are bound by validate/sandbox.ts.
// And masked in the fresh /proc: the kernel's command line (and boot config), with an empty file.
// The fresh /proc shows the sandbox's own pid namespace only; its pid 1 is the worker (see validate/sandbox.ts).
// See docs/validate.md ("Sandbox").
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** PCI vendor id of NVIDIA, as /sys/bus/pci/devices/<bdf>/vendor prints it. */
const NVIDIA_VENDOR = '0x10de';

/** Files of the host's /proc a block must not read, masked where this kernel has them. */
const PROC_MASKED = ['cmdline', 'bootconfig'];

/**
 * An empty file and an empty folder in `dir` (a staging folder), to bind read-only over what a sandbox must not see:
 * a mask must be of the same kind as what it covers.
 */
export function emptyMasks(dir: string): { file: string; dir: string } {
  const file = join(dir, 'empty');
  const folder = join(dir, 'empty.d');
  if (!existsSync(file)) writeFileSync(file, '', { mode: 0o444 });
  if (!existsSync(folder)) mkdirSync(folder, { mode: 0o555 });
  return { file, dir: folder };
}

/** `--proc /proc` and the masks over it (the file `empty`, see emptyMasks). */
export function procArgs(empty: string, proc = '/proc'): string[] {
  const masks = PROC_MASKED.filter((name) => existsSync(join(proc, name)));
  return ['--proc', '/proc', ...masks.flatMap((name) => ['--ro-bind', empty, `/proc/${name}`])];
}

/** The parts of /sys a sandbox shows (read-only, at the same paths); `sys` is the host's /sys (tests use a fake). */
export function sysArgs(gpu: boolean, sys = '/sys'): string[] {
  const args = ['--ro-bind-try', join(sys, 'devices/system/cpu'), '/sys/devices/system/cpu'];
  if (!gpu) return args;
  args.push('--ro-bind-try', join(sys, 'devices/system/node'), '/sys/devices/system/node');
  for (const mod of ['nvidia', 'nvidia_uvm'])
    args.push('--ro-bind-try', join(sys, 'module', mod), `/sys/module/${mod}`);
  const bus = join(sys, 'bus/pci/devices');
  let root: string;
  let devices: string[];
  try {
    root = realpathSync(sys);
    devices = readdirSync(bus).sort();
  } catch {
    return args;
  }
  for (const bdf of devices) {
    const link = join(bus, bdf);
    try {
      if (readFileSync(join(link, 'vendor'), 'utf8').trim() !== NVIDIA_VENDOR) continue;
      // The device's folder at its real place (/sys/devices/pci0000:00/.../<bdf>), and the bus's link to it.
      const real = realpathSync(link);
      args.push('--ro-bind', real, join('/sys', relative(root, real)));
      args.push('--symlink', readlinkSync(link), `/sys/bus/pci/devices/${bdf}`);
    } catch {
      // gone or unreadable: not a device this run can use
    }
  }
  return args;
}
