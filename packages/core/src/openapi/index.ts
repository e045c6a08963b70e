export { defineRoute, toOpenApiPath, pathParamNames, type RouteSpec, type RouteAuth, type RouteResponse, type HttpMethod } from './route.ts';
export { buildOpenApiDocument, securitySchemes, type OpenApiDocument, type OpenApiOptions } from './build.ts';
export { checkOpenApiDocument } from './validate.ts';
