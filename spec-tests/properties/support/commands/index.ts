/**
 * The commands of the random call sequences, one file each (as fast-check's model-based examples lay them
 * out): its arbitrary, what it sends over HTTP, and what it reads into the model. `bad` and `ingestion`
 * dispatch further, one file per refusal kind (bad/) and per ingestion action (ingestion/).
 */
import type { Runner } from '../runner.js';
import type { Step, StepOf } from '../steps.js';
import * as newEstablishment from './new-establishment.js';
import * as newCatalog from './new-catalog.js';
import * as newProduct from './new-product.js';
import * as editProduct from './edit-product.js';
import * as editCatalog from './edit-catalog.js';
import * as editEstablishment from './edit-establishment.js';
import * as link from './link.js';
import * as unlink from './unlink.js';
import * as archive from './archive.js';
import * as read from './read.js';
import * as list from './list.js';
import * as advance from './advance.js';
import * as concurrentEdit from './concurrent-edit.js';
import * as bad from './bad.js';
import * as ingestion from './ingestion.js';

/** Each command's arbitrary (advance takes the longest clock move). */
export const arbitraries = {
  newEstablishment: newEstablishment.arbitrary,
  newCatalog: newCatalog.arbitrary,
  newProduct: newProduct.arbitrary,
  editProduct: editProduct.arbitrary,
  editCatalog: editCatalog.arbitrary,
  editEstablishment: editEstablishment.arbitrary,
  link: link.arbitrary,
  unlink: unlink.arbitrary,
  archive: archive.arbitrary,
  read: read.arbitrary,
  list: list.arbitrary,
  advance: advance.arbitrary,
  concurrentEdit: concurrentEdit.arbitrary,
  bad: bad.arbitrary,
  ingestion: ingestion.arbitrary,
};

const COMMANDS: { [T in Step['t']]: (r: Runner, step: StepOf<T>) => Promise<void> } = {
  newEstablishment: newEstablishment.run,
  newCatalog: newCatalog.run,
  newProduct: newProduct.run,
  editProduct: editProduct.run,
  editCatalog: editCatalog.run,
  editEstablishment: editEstablishment.run,
  link: link.run,
  unlink: unlink.run,
  archive: archive.run,
  read: read.run,
  list: list.run,
  advance: advance.run,
  concurrentEdit: concurrentEdit.run,
  bad: bad.run,
  ingestion: ingestion.run,
};

export function runStep(r: Runner, step: Step): Promise<void> {
  return (COMMANDS[step.t] as (r: Runner, step: Step) => Promise<void>)(r, step);
}
