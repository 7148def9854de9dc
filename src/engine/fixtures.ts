/**
 * Fixtures: records an emulator starts with, and starts with again after every reset (EmulatorOptions.fixtures,
 * the CLI's --fixtures FILE). This file holds their types only: the format a caller writes, and what was made of
 * it. They are read and applied by the API shell (src/http/fixtures.ts), through the API's own operations, so
 * every rule a client meets applies to them too; the engine only runs the seeder it is given on each fresh world.
 */
import type { CompanyFlags, Permission } from '../core/companies.js';
import type { Config } from './config.js';
import type { CreatedCompanyInfo, World } from './world.js';

/** The fixtures format, version 1. Every object is strict: a key not listed here is refused. */
export interface Fixtures {
  readonly version: 1;
  readonly companies: readonly FixtureCompany[];
}

/** A company on the shared clock, with its head office and first credential, then its records. */
export interface FixtureCompany extends CompanyFlags {
  /** 8 digits; a seeded random root when omitted. */
  readonly cnpjRoot?: string;
  /** Permissions of its first credential; all six by default. */
  readonly permissions?: readonly Permission[];
  /** More credentials of the company, each with its permissions (all six when omitted), made after the first. */
  readonly credentials?: readonly { readonly permissions?: readonly Permission[] }[];
  /** Branches (or any establishment besides the head office), as POST /v1/estabelecimentos takes them. */
  readonly establishments?: readonly FixtureEstablishment[];
  readonly catalogs?: readonly FixtureCatalog[];
  /** The webhook destination, as PUT /v1/webhook (with If-None-Match: *) takes it. */
  readonly webhook?: { readonly url: string };
}

/** The body of POST /v1/estabelecimentos. */
export interface FixtureEstablishment {
  readonly cnpj: string;
  readonly nome: string;
  readonly id_externo?: string | null;
}

/** The body of POST /v1/catalogos, the establishment named by its CNPJ, and the catalog's products. */
export interface FixtureCatalog {
  /** The CNPJ of the head office or of one of `establishments`; the head office when omitted. */
  readonly establishment?: string;
  readonly nome: string;
  readonly id_externo?: string | null;
  /** Each the body of POST /v1/catalogos/{id}/produtos. */
  readonly products?: readonly FixtureProduct[];
}

/** The body of POST /v1/catalogos/{id}/produtos. */
export interface FixtureProduct {
  readonly origem: string;
  readonly ncm: string;
  readonly id_externo?: string | null;
  readonly sku?: string | null;
  readonly descricao?: string | null;
  readonly atributos?: readonly { readonly codigo: string; readonly valores: readonly string[] }[];
}

/** What the fixtures made of one company: its ids and token, and the id of every record created for it. */
export interface SeededCompany extends CreatedCompanyInfo {
  readonly name: string;
  /** The credentials `credentials` made, in order (the first credential is `token`). */
  readonly credentials: readonly { readonly permissions: readonly Permission[]; readonly token: string }[];
  readonly establishments: readonly { readonly id: string; readonly cnpj: string; readonly nome: string }[];
  readonly catalogs: readonly SeededCatalog[];
  /** The destination and its signing secret (which GET /v1/webhook never shows); null without one. */
  readonly webhook: { readonly id: string; readonly url: string; readonly secret: string } | null;
}

export interface SeededCatalog {
  readonly id: string;
  readonly nome: string;
  readonly establishmentId: string;
  readonly products: readonly {
    readonly id: string;
    readonly ncm: string;
    readonly id_externo: string | null;
    readonly sku: string | null;
  }[];
}

/**
 * Creates the fixtures' records in a fresh world, at its start instant (so that the same seed gives the same ids
 * in either clock mode); throws a TypeError naming what the API refused (`fixtures.companies[0]…`).
 */
export type Seeder = (world: World, at: number, config: Config) => readonly SeededCompany[];
