// License detection: texts to SPDX ids, and metadata names mapped to SPDX with the method saying so.
import { describe, expect, it } from 'vitest';
import { licenseFromMetadata, spdxFromText } from '../../pipeline/sources/license.ts';

describe('license texts', () => {
  const cases: [string, string | null][] = [
    ['Permission is hereby granted, free of charge, to any person obtaining a copy', 'MIT'],
    [
      'Redistribution and use in source and binary forms, with or without modification... Neither the name of the copyright holder',
      'BSD-3-Clause',
    ],
    ['Redistribution and use in source and binary forms, with or without modification, are permitted', 'BSD-2-Clause'],
    ['Apache License\n  Version 2.0, January 2004', 'Apache-2.0'],
    ['GNU GENERAL PUBLIC LICENSE\n Version 3, 29 June 2007', 'GPL-3.0'],
    ['GNU GENERAL PUBLIC LICENSE\n Version 2, June 1991', 'GPL-2.0'],
    // "Lesser" must win over plain GPL, whose words it contains.
    ['GNU LESSER GENERAL PUBLIC LICENSE\n Version 3, 29 June 2007', 'LGPL-3.0'],
    ['Mozilla Public License Version 2.0', 'MPL-2.0'],
    ['Attribution-NonCommercial 4.0 International', 'CC-BY-NC-4.0'],
    ['# SPDX-License-Identifier: AGPL-3.0-only\n', 'AGPL-3.0-only'],
    ['All rights reserved.', null],
  ];
  it.each(cases)('%s → %s', (text, spdx) => expect(spdxFromText(text)).toBe(spdx));
});

describe('package metadata', () => {
  it('maps lossy names and says so', () => {
    expect(licenseFromMetadata({ license: 'BSD' })).toEqual({
      spdx: 'BSD-3-Clause',
      method: 'package metadata License: BSD (mapped to BSD-3-Clause)',
    });
    expect(licenseFromMetadata({ license: 'MIT' })).toEqual({ spdx: 'MIT', method: 'package metadata License: MIT' });
    expect(licenseFromMetadata({ licenseExpression: 'Apache-2.0 OR MIT' })?.spdx).toBe('Apache-2.0 OR MIT');
    expect(
      licenseFromMetadata({ license: 'UNKNOWN', classifiers: ['License :: OSI Approved :: Apache Software License'] }),
    ).toEqual({
      spdx: 'Apache-2.0',
      method: 'package classifier License :: OSI Approved :: Apache Software License (mapped to Apache-2.0)',
    });
    expect(licenseFromMetadata({ license: 'Proprietary' })).toBeNull();
  });
});
