/** JSON columns: written as text, read back typed (the database holds only what the services wrote). */
export const toJson = (value: unknown) => JSON.stringify(value);
export const fromJson = <T>(text: string) => JSON.parse(text) as T;
