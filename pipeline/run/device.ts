// Which device a run asks validation for, decided in one place for `build`, `validate` and `dedup --validated`: the
// command line's `--device`, else the config's `validate.device`, else `auto`. Asking alike, they key their cached
// records alike (the resolved device is part of each key).
import type { CorpusConfig } from '../config/types.ts';
import type { Device } from '../config/device.ts';

export { DEVICES, type Device } from '../config/device.ts';

export function requestedDevice(config: Pick<CorpusConfig, 'validate'>, flag?: Device): Device {
  return flag ?? config.validate?.device ?? 'auto';
}
