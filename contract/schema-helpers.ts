import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

/** A timestamp in the JSON of an answer (ISO 8601), with its meaning. Shared by the schema files, not exported by the contract. */
export const isoDate = (description: string) => extendApi(z.string(), { format: 'date-time', description });
