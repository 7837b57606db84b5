/** Builds what the tests start for real (e.g. the Node worker entry) once, before any test file runs. */
export default async function setup(): Promise<void> {}
