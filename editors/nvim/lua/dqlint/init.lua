-- dqlint language server for Neovim: `require("dqlint").setup(opts)`.
-- Neovim 0.11+: registers the server with vim.lsp.config/vim.lsp.enable.
-- Neovim 0.8-0.10: starts it with vim.lsp.start from a FileType autocommand.
-- Either way the server runs only for buffers inside a folder holding lhp.yaml.

local M = {}

M.defaults = {
  -- The command that starts the server.
  cmd = { "dqlint", "server" },
  filetypes = { "yaml", "json", "sql" },
  -- Sent as initializationOptions (and on changes as settings).
  envs = {},
  select = {},
  ignore = {},
  -- Force the vim.lsp.start path even on 0.11+ (tests, odd setups).
  legacy = false,
}

local function root_of(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" then
    return nil
  end
  local found = vim.fs.find("lhp.yaml", { upward = true, path = vim.fs.dirname(name), type = "file" })[1]
  return found and vim.fs.dirname(found) or nil
end

local function server_settings(opts)
  return { envs = opts.envs, select = opts.select, ignore = opts.ignore }
end

--- The client configuration, shared by both ways of starting the server.
function M.config(opts)
  opts = vim.tbl_deep_extend("force", M.defaults, opts or {})
  return {
    name = "dqlint",
    cmd = opts.cmd,
    filetypes = opts.filetypes,
    init_options = server_settings(opts),
    settings = { dqlint = server_settings(opts) },
  }, opts
end

function M.setup(opts)
  local config, resolved = M.config(opts)
  if vim.fn.executable(config.cmd[1]) ~= 1 then
    vim.notify("dqlint: `" .. config.cmd[1] .. "` is not executable; set `cmd` in require('dqlint').setup()", vim.log.levels.WARN)
  end

  if vim.lsp.config ~= nil and vim.lsp.enable ~= nil and not resolved.legacy then
    -- 0.11+: start only when the buffer is inside an LHP project.
    config.root_dir = function(bufnr, on_dir)
      local root = root_of(bufnr)
      if root then
        on_dir(root)
      end
    end
    vim.lsp.config("dqlint", config)
    vim.lsp.enable("dqlint")
    return
  end

  local group = vim.api.nvim_create_augroup("dqlint", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      local root = root_of(args.buf)
      if not root then
        return
      end
      -- vim.lsp.start reuses a running client with the same name and root.
      vim.lsp.start({
        name = config.name,
        cmd = config.cmd,
        root_dir = root,
        init_options = config.init_options,
        settings = config.settings,
      }, { bufnr = args.buf })
    end,
  })
end

return M
