import { defaultStyles, JsonView } from "react-json-view-lite";
import "react-json-view-lite/dist/index.css";
import type { ChatMessage, Part } from "./span-content.ts";

/** JSON with its nested levels collapsed past the second; a plain value as text. */
export function Json({ value, label }: { value: unknown; label: string }) {
  if (typeof value !== "object" || value === null) return <pre className="plain">{String(value)}</pre>;
  return (
    <JsonView data={value as object} shouldExpandNode={(level) => level < 2} style={defaultStyles} aria-label={label} />
  );
}

function PartView({ part }: { part: Part }) {
  switch (part.kind) {
    case "text":
      return <p className="text">{part.text}</p>;
    case "tool-call":
      return (
        <div className="tool">
          <span className="tool-label">Tool call: {part.name}</span>
          <pre>{part.arguments}</pre>
        </div>
      );
    case "tool-response":
      return (
        <div className="tool">
          <span className="tool-label">Tool result: {part.name}</span>
          <pre>{part.data}</pre>
        </div>
      );
    case "image":
      return <img src={part.url} alt="From the message" className="image" />;
    default:
      return <Json value={part.value} label="Message part" />;
  }
}

/** Chat turns, each with its role. */
export function Messages({ messages, label }: { messages: ChatMessage[]; label: string }) {
  return (
    <ol className="messages" aria-label={label}>
      {messages.map((message, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: messages have no id and never reorder
        <li key={index} className={`message role-${message.role}`}>
          <span className="role-name">{message.role}</span>
          {message.parts.map((part, partIndex) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts have no id and never reorder
            <PartView key={partIndex} part={part} />
          ))}
        </li>
      ))}
    </ol>
  );
}
