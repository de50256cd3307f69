-- Neovim 0.11+ native configuration: with this folder on 'runtimepath',
-- `vim.lsp.enable("dqlint")` is enough (or use require("dqlint").setup()).
return {
  cmd = { "dqlint", "server" },
  filetypes = { "yaml", "json", "sql", "python" },
  -- lhp.yaml first; pipeline sources and DQX files without these: use
  -- require("dqlint").setup(), which also reads the buffer's imports.
  root_markers = { "lhp.yaml", "dqlint.toml", "databricks.yml", ".dqx" },
  workspace_required = true,
}
