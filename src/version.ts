/** The package version (kept equal to package.json's by src/version.test.ts). */
export const VERSION = '0.1.0';
