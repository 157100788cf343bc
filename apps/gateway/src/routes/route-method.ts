import { Delete, Get, Patch, Post } from '@nestjs/common';

const METHODS = { GET: Get, POST: Post, PATCH: Patch, DELETE: Delete } as const;
export type RouteMethod = keyof typeof METHODS;

/** Nest's method decorator for a route (the route decorators are the only ones to use it). */
export function routeMethod(method: RouteMethod, path: string): MethodDecorator {
  return METHODS[method](path);
}
