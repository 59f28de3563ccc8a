import { ServiceDefinition } from '@grpc/grpc-js';
import type { Message, Method, Service, Type } from 'protobufjs';

/** The grpc-js definition of a unary service from its protobufjs descriptor (requests decoded, answers from objects). */
export function definitionOf(service: Service): ServiceDefinition {
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const method of service.methodsArray as Method[]) {
    const requestType = method.resolvedRequestType as Type;
    const responseType = method.resolvedResponseType as Type;
    definition[method.name] = {
      path: `/${service.fullName.slice(1)}/${method.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (value: Message) => Buffer.from(requestType.encode(value).finish()),
      requestDeserialize: (bytes: Buffer) => requestType.decode(bytes),
      responseSerialize: (value: Record<string, unknown>) =>
        Buffer.from(responseType.encode(responseType.fromObject(value)).finish()),
      responseDeserialize: (bytes: Buffer) => responseType.decode(bytes),
    };
  }
  return definition as ServiceDefinition;
}
