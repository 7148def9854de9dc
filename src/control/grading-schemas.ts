/**
 * The schema of a finding on the client (src/grading/findings.ts), which two groups answer with: the report
 * (groups/report.ts) and an exploration's failure (groups/explorations.ts), which includes the report's.
 */
import * as z from 'zod';
import { named } from './schemas.js';

export const clientFinding = named('ClientFinding', () =>
  z.strictObject({
    at: z.string().meta({ description: 'Virtual time of what broke the rule.' }),
    rule: z.string().meta({ description: 'The rule (docs/grading.md "Findings on your client" lists them).' }),
    companyId: z.string().nullable(),
    statements: z.array(z.string()).meta({ description: 'The spec statements or header rules it comes from.' }),
    message: z.string(),
    requestIds: z.array(z.string()),
    eventIds: z.array(z.string()),
    fix: z.string(),
  }),
);
