/**
 * Discord's "Invalid Form Body" (50035) error tree: each bad field carries
 * `{_errors: [{code, message}]}` at its path, array indices as string keys,
 * errors about the whole body at the root (discord-api-docs, Reference →
 * "Error Messages").
 */

export interface FormIssue {
  /** Field path, e.g. `['allowed_mentions', 'parse', 0]`; empty for the body itself. */
  path: (string | number)[];
  /** Discord's field error code, e.g. `BASE_TYPE_MAX_LENGTH`. */
  code: string;
  message: string;
}

interface ErrorNode {
  _errors?: { code: string; message: string }[];
  [key: string]: unknown;
}

/** Nests the issues into Discord's `errors` object. */
export function formErrorTree(issues: readonly FormIssue[]): ErrorNode {
  const root: ErrorNode = {};
  for (const issue of issues) {
    let node = root;
    for (const key of issue.path) {
      const name = String(key);
      const child = (node[name] as ErrorNode | undefined) ?? {};
      node[name] = child;
      node = child;
    }
    node._errors = [...(node._errors ?? []), { code: issue.code, message: issue.message }];
  }
  return root;
}

/** Field error builders with Discord's codes and wording. */
export const formIssue = {
  required: (path: FormIssue['path']): FormIssue => ({
    path,
    code: 'BASE_TYPE_REQUIRED',
    message: 'This field is required',
  }),
  maxLength: (path: FormIssue['path'], max: number): FormIssue => ({
    path,
    code: 'BASE_TYPE_MAX_LENGTH',
    message: `Must be ${max} or fewer in length.`,
  }),
  badLength: (path: FormIssue['path'], min: number, max: number): FormIssue => ({
    path,
    code: 'BASE_TYPE_BAD_LENGTH',
    message: `Must be between ${min} and ${max} in length.`,
  }),
  notString: (path: FormIssue['path'], value: unknown): FormIssue => ({
    path,
    code: 'BASE_TYPE_STRING',
    message: `Could not interpret ${JSON.stringify(value)} as string.`,
  }),
  notInt: (path: FormIssue['path'], value: unknown): FormIssue => ({
    path,
    code: 'NUMBER_TYPE_COERCE',
    message: `Value ${JSON.stringify(String(value))} is not int.`,
  }),
  notBoolean: (path: FormIssue['path']): FormIssue => ({
    path,
    code: 'BASE_TYPE_BOOLEAN',
    message: 'Must be either true or false.',
  }),
  notSnowflake: (path: FormIssue['path'], value: unknown): FormIssue => ({
    path,
    code: 'NUMBER_TYPE_COERCE',
    message: `Value ${JSON.stringify(String(value))} is not snowflake.`,
  }),
  notList: (path: FormIssue['path']): FormIssue => ({
    path,
    code: 'BASE_TYPE_ARRAY',
    message: 'Must be an array.',
  }),
  notDict: (path: FormIssue['path']): FormIssue => ({
    path,
    code: 'DICT_TYPE_CONVERT',
    message: 'Only dictionaries may be used in a DictType',
  }),
  notInEnum: (path: FormIssue['path'], value: unknown): FormIssue => ({
    path,
    code: 'ENUM_TYPE_COERCE',
    message: `Value ${JSON.stringify(String(value))} is not a valid enum value.`,
  }),
};
