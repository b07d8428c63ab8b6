/** The inspector's HTML: a root for React, the styles and the bundled script (relative, so any mount path works). */
export const inspectorHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rxagents run inspector</title>
<style>
  body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: #1f2328; background: #f6f8fa; }
  #root { display: grid; grid-template-columns: 260px 1fr; min-height: 100vh; }
  aside { background: #fff; border-right: 1px solid #d0d7de; padding: 8px; overflow: auto; }
  aside h1 { font-size: 14px; margin: 4px 0 8px; }
  aside li { list-style: none; padding: 4px 6px; border-radius: 4px; cursor: pointer; }
  aside ul { padding: 0; margin: 0; }
  aside li.selected { background: #ddf4ff; }
  aside li small { color: #656d76; display: block; font-family: ui-monospace, monospace; font-size: 11px; }
  main { padding: 8px 12px; display: grid; gap: 10px; grid-template-columns: minmax(240px, 1fr) 2fr; align-content: start; }
  section { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; }
  section h2 { font-size: 12px; text-transform: uppercase; color: #656d76; margin: 0 0 6px; }
  #cursor, #timeline, #metrics { grid-column: 1 / -1; }
  #cursor input { width: 100%; }
  .status { font-size: 11px; padding: 0 5px; border-radius: 8px; background: #eaeef2; margin-left: 4px; }
  [data-status="running"] > .label .status, li[data-status="running"] .status { background: #ddf4ff; color: #0969da; }
  [data-status="failed"] > .label .status, li[data-status="failed"] .status { background: #ffebe9; color: #cf222e; }
  [data-status="completed"] > .label .status, li[data-status="succeeded"] .status { background: #dafbe1; color: #1a7f37; }
  [data-status="interrupted"] > .label .status { background: #fff8c5; color: #7d4e00; }
  [data-status="interrupted"] > .label { color: #656d76; }
  #tree .attempt { font-size: 10px; color: #7d4e00; margin-left: 4px; }
  #tree .fold { display: block; font-size: 11px; color: #656d76; margin-bottom: 4px; }
  #tree ul { padding-left: 14px; margin: 0; }
  #tree li { list-style: none; }
  #tree .label { cursor: pointer; border-radius: 3px; padding: 0 3px; }
  #tree .kind { font-size: 10px; color: #656d76; margin-right: 4px; text-transform: uppercase; }
  #tree .label.selected { background: #ddf4ff; }
  #details pre { white-space: pre-wrap; background: #f6f8fa; padding: 6px; border-radius: 4px; margin: 2px 0 6px; max-height: 160px; overflow: auto; }
  #details dt { color: #656d76; font-size: 11px; }
  #details dd { margin: 0 0 4px; }
  .error { color: #cf222e; }
  .interrupted { color: #7d4e00; }
  svg text { font: 11px system-ui, sans-serif; }
</style>
</head>
<body>
<div id="root"></div>
<script type="module" src="inspector.js"></script>
</body>
</html>
`;
