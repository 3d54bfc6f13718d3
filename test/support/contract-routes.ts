import { contract } from '../../contract';

export interface ContractRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
}

/** Every route of the contract, found by walking its routers (so new endpoints are picked up on their own). */
export function contractRoutes(router: object = contract): ContractRoute[] {
  return Object.values(router).flatMap((v: unknown) => {
    if (v && typeof v === 'object' && 'method' in v && 'path' in v) return [v as ContractRoute];
    return v && typeof v === 'object' ? contractRoutes(v) : [];
  });
}
