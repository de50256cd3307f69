-- Neovim 0.11+ native configuration: with this folder on 'runtimepath',
-- `vim.lsp.enable("dqlint")` is enough (or use require("dqlint").setup()).
return {
  cmd = { "dqlint", "server" },
  filetypes = { "yaml", "json", "sql" },
  root_markers = { "lhp.yaml" },
  workspace_required = true,
}
