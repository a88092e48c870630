// The device validation is asked to run blocks on: config `validate.device`, or `--device`, which overrides it.
// The runner (runner.py, `probe_device`) knows exactly these requests: `cpu`; `cuda`, an error without a GPU torch
// can use; `auto`, CUDA when torch sees a GPU, else the CPU. Whatever was asked, a record names the device the
// runner resolved it to (`RunDevice`, validate/types.ts). content/corpus.schema.json lists the same values (a test
// checks it).
export const DEVICES = ['auto', 'cpu', 'cuda'] as const;

export type Device = (typeof DEVICES)[number];
