export { scriptedAgent, type Script, type ScriptRule, type ScriptMatcher, type ScriptedAgent, type ScriptedAgentOptions } from './scriptedAgent';
export { answerToObservable, type ScriptAnswer } from './ScriptAnswer';
export { failingAgent, type FailingAgentOptions, type FailureMode } from './failingAgent';
export { hangingAgent, type HangingAgent } from './hangingAgent';
export { recordingAgent, type RecordedCall, type RecordingAgent } from './recordingAgent';
