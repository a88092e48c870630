// What of the host's /sys, /proc and /dev a validate sandbox is given, on fake trees: CPU topology always; for a GPU
// run the NVIDIA devices' own PCI folders, their bus links, NUMA nodes and driver modules, and their device nodes;
// never another PCI device. What a block sees in a real sandbox is tried in test/validate/walls.test.ts.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyMasks, procArgs, sysArgs } from '../../pipeline/sandbox/host-view.ts';
import { gpuDeviceArgs, sandboxCommand } from '../../pipeline/validate/sandbox.ts';
import { tempDir, writeTree } from '../helpers/tree.ts';

/** A /sys with one NVIDIA GPU and one network card behind the same root port. */
function fakeSys(): string {
  const sys = writeTree({
    'devices/system/cpu/online': '0-1\n',
    'devices/system/node/node0/cpulist': '0-1\n',
    'devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor': '0x10de\n',
    'devices/pci0000:00/0000:00:01.0/0000:01:00.0/numa_node': '0\n',
    'devices/pci0000:00/0000:00:01.0/0000:02:00.0/vendor': '0x8086\n',
    'devices/pci0000:00/0000:00:01.0/0000:02:00.0/net/eth0/address': '02:42:ac:11:00:02\n',
    'module/nvidia/version': '570.00\n',
  });
  mkdirSync(join(sys, 'bus/pci/devices'), { recursive: true });
  for (const bdf of ['0000:01:00.0', '0000:02:00.0'])
    symlinkSync(`../../../devices/pci0000:00/0000:00:01.0/${bdf}`, join(sys, 'bus/pci/devices', bdf));
  return sys;
}

/** Pairs of (source, destination) for each bind-like option in `args`. */
function binds(args: string[], opt: string): [string, string][] {
  const out: [string, string][] = [];
  args.forEach((a, i) => a === opt && out.push([args[i + 1], args[i + 2]]));
  return out;
}

describe('what of the host a validate sandbox shows', () => {
  it('shows only the CPU topology of /sys on a CPU run', () => {
    const sys = fakeSys();
    expect(sysArgs(false, sys)).toEqual(['--ro-bind-try', join(sys, 'devices/system/cpu'), '/sys/devices/system/cpu']);
  });

  it("adds the NVIDIA GPU's own PCI folder, its bus link, NUMA nodes and the driver's modules on a GPU run", () => {
    const sys = fakeSys();
    const args = sysArgs(true, sys);
    const gpu = '/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0';
    expect(binds(args, '--ro-bind')).toEqual([[join(sys, gpu.slice(5)), gpu]]);
    expect(binds(args, '--symlink')).toEqual([
      ['../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0', '/sys/bus/pci/devices/0000:01:00.0'],
    ]);
    expect(binds(args, '--ro-bind-try').map(([, to]) => to)).toEqual([
      '/sys/devices/system/cpu',
      '/sys/devices/system/node',
      '/sys/module/nvidia',
      '/sys/module/nvidia_uvm',
    ]);
    expect(args.join(' ')).not.toContain('0000:02:00.0'); // the network card (its MAC address) stays out
  });

  it('binds the NVIDIA device nodes and nothing else of /dev', () => {
    const dev = tempDir('nnb-dev-');
    for (const name of ['nvidia0', 'nvidiactl', 'nvidia-uvm', 'sda', 'tty0']) writeFileSync(join(dev, name), '');
    mkdirSync(join(dev, 'nvidia-caps'));
    expect(binds(gpuDeviceArgs(dev), '--dev-bind-try').map(([, to]) => to)).toEqual([
      '/dev/nvidia-caps',
      '/dev/nvidia-uvm',
      '/dev/nvidia0',
      '/dev/nvidiactl',
    ]);
  });

  it('masks the kernel command line with an empty file', () => {
    const { file } = emptyMasks(tempDir());
    const args = procArgs(file);
    expect(args.slice(0, 2)).toEqual(['--proc', '/proc']);
    expect(binds(args, '--ro-bind')).toContainEqual([file, '/proc/cmdline']);
  });

  it('runs the worker as pid 1, with /sys reduced, /proc masked and no /sys bound whole', () => {
    const staging = tempDir();
    const { args } = sandboxCommand({
      python: '/usr/bin/python3',
      runnerDir: staging,
      inboxDir: staging,
      readOnly: [],
      gpu: false,
      tmpBytes: 1 << 20,
      accountsDir: staging,
    });
    expect(args).toContain('--as-pid-1');
    expect(binds(args, '--ro-bind-try')).not.toContainEqual(['/sys', '/sys']);
    expect(binds(args, '--ro-bind')).toContainEqual([join(staging, 'empty'), '/proc/cmdline']);
    // The masks come after /proc is mounted, and everything before the root turns read-only.
    expect(args.indexOf('/proc/cmdline')).toBeGreaterThan(args.indexOf('--proc'));
    expect(args.lastIndexOf('--remount-ro')).toBeGreaterThan(args.indexOf('/proc/cmdline'));
  });
});
