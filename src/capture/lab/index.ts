// The lab driver's public face: the driver, and the cleaner behind `--driver lab --clean`.
export { LabDriver, type LabDriverOptions } from './lab-driver.ts';
export { labLeftovers } from './leftovers.ts';
