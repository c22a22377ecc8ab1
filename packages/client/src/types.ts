/** The contract's types the SDK's own API speaks in (bundled into the published declarations). */
import type { components } from "@pharos/contract/types";

export type Schemas = components["schemas"];
export type Deployment = Schemas["Deployment"];
export type PromptSnapshot = Schemas["PromptSnapshot"];
export type PromptMessage = Schemas["PromptMessage"];
export type LogSpanContent = Schemas["LogSpanContent"];
export type LogAttributes = Schemas["LogAttributes"];
export type TraceStatus = Schemas["TraceStatusInput"];
export type SpanStatus = Schemas["SpanStatusInput"];
export type SpanVariable = Schemas["SpanVariable"];
