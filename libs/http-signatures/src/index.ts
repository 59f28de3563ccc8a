export * from './profile';
export * from './verification-error';
export { digestFieldValue, checkContentDigest, type DigestCheck } from './content-digest';
export {
  componentIdentifier,
  signatureParamsValue,
  signatureBase,
  fieldValue,
  type CoveredValue,
  type SignatureParameters,
} from './signature-base';
export * from './jwks';
export * from './verify-answer';
export * from './export-manifest';
export { toBase64, toBase64Url, fromBase64Url } from './base64';
export * from './saved-answer';
