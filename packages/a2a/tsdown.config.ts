// The shared package build; see the repository root.
export { default } from '../../tsdown.shared';
