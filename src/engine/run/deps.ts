// What the run loop works with: the store, artifact files, runtimes, worktrees and the engine's options.

import type { Usage } from "../../core/usage.js";
import type { RuntimeRegistry } from "../../runtimes/runtime-registry.js";
import type { ArtifactFiles } from "../../store/artifact-files.js";
import type { RunStore } from "../../store/run-store.js";
import type { IntegrationBranch } from "../../workspace/integration-branch.js";
import type { Worktrees } from "../../workspace/worktrees.js";
import type { RunDelegation } from "../delegation/delegate-run.js";
import type { EngineOptions } from "../options.js";

/** What the run loop of a run works with: the store, its files, the runtimes, git and the engine's options. */
export interface RunLoopDeps {
	readonly store: RunStore;
	readonly files: ArtifactFiles;
	/** The project's `.crew` folder: hidden from sandboxed tasks, but for their own files. */
	readonly crewDir: string;
	readonly runtimes: RuntimeRegistry;
	readonly options: EngineOptions;
	readonly worktrees: Worktrees;
	readonly integration: IntegrationBranch;
	/** This machine's runtimes, where `runtimes` hands attempts to a queue. */
	readonly localRuntimes?: RuntimeRegistry;
	/** Whether the user trusts the project's own files to run, as decided when this runner started. */
	readonly trusted?: boolean;
	/** How the run's agents delegate runs of their own: absent, they may not. */
	readonly delegation?: RunDelegation;
	/** Hears each token the run spends, as it is counted: a delegated run's parent counts it as its own. */
	readonly onSpend?: (usage: Usage) => void;
}
