/** Whether dist/ holds a build of the current sources (see build-state.js). */
export function builtAndFresh(): boolean;
