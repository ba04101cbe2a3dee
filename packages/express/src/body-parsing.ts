import { jsonDepth, jsonLength } from '@agenthost/core';
import bytes from 'bytes';
import express, { type RequestHandler } from 'express';
import { refusal } from './envelope.js';
import { send } from './request-state.js';

/** Deepest nesting a JSON body may have; deeper bodies are refused before anything walks them. */
export const MAX_JSON_DEPTH = 64;

const JSON_BODY_TYPES = ['application/json', 'application/*+json'];

/** Refuses, with 415, a body that is not JSON. */
const requireJson: RequestHandler = function agentHostRequireJson(req, res, next) {
  const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
  if (hasBody && !req.is(JSON_BODY_TYPES)) {
    return send(
      req,
      res,
      refusal('unsupported_media_type', 'Unsupported content type: send the body as application/json'),
    );
  }
  next();
};

/**
 * A host's own body parser in front has read the body already (ours then skips it): hold it to this
 * router's size limit too, measured as its JSON text (whatever the transfer: chunked, compressed).
 */
function hostParsedBody(bodyLimit: string | number): RequestHandler {
  const limit = typeof bodyLimit === 'number' ? bodyLimit : (bytes.parse(bodyLimit) ?? Number.POSITIVE_INFINITY);
  return function agentHostParsedBody(req, res, next) {
    if (
      req.body !== undefined &&
      (Number(req.get('content-length') ?? 0) > limit || jsonLength(req.body, limit) > limit)
    ) {
      return send(req, res, refusal('payload_too_large', `Request body is larger than the limit of ${bodyLimit}`));
    }
    next();
  };
}

/** Refuses, with 400, a body nested deeper than {@link MAX_JSON_DEPTH}, however it was parsed. */
const limitDepth: RequestHandler = function agentHostJsonDepth(req, res, next) {
  if (req.body !== undefined && jsonDepth(req.body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    return send(req, res, refusal('invalid_json', `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep`));
  }
  next();
};

/**
 * The body middlewares, in order: JSON only (415), a host-parsed body within the limit (413), strict
 * JSON parsing within the limit (its refusals become envelopes in the error handler), bounded depth.
 */
export function bodyParsing(bodyLimit: string | number): RequestHandler[] {
  return [
    requireJson,
    hostParsedBody(bodyLimit),
    express.json({ limit: bodyLimit, strict: true, type: JSON_BODY_TYPES }),
    limitDepth,
  ];
}
