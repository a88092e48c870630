// Where a long identifier may wrap: after `.` and `_` and between a lower-case letter or digit and a capital
// (`torchvision.ops.misc.Conv2dNormActivation` → `torchvision.` `ops.` `misc.` `Conv2d` `Norm` `Activation`), so
// that on a phone it breaks between its parts instead of mid-word or off the screen. Pages put a <wbr> between pieces.
export function identPieces(text: string): string[] {
  return text.split(/(?<=[._])(?=[^._])|(?<=[a-z0-9])(?=[A-Z])/);
}
