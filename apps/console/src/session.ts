/**
 * The signed-in API key lives in session storage: it survives a reload of the tab but not the tab itself,
 * and signing out removes it.
 */
const KEY = "pharos.apiKey";

export const storedKey = (): string | null => sessionStorage.getItem(KEY);
export const storeKey = (key: string) => sessionStorage.setItem(KEY, key);
export const forgetKey = () => sessionStorage.removeItem(KEY);
