/**
 * The page the reset mail links to (`<PUBLIC_URL>/reset-password#token=…`): a form that posts the token
 * from the fragment and the new password to `POST /auth/password/reset`. The panel (a later issue) will
 * take this path over; until then the link works on its own. No external resource, no stored state.
 */
export const RESET_PAGE_PATH = '/reset-password';

export const RESET_PAGE_HTML = `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Nova senha</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 22rem; margin: 3rem auto; padding: 0 1rem; color: #222; }
  label { display: block; margin: 1rem 0 .25rem; }
  input, button { width: 100%; box-sizing: border-box; padding: .6rem; font-size: 1rem; }
  button { margin-top: 1.25rem; cursor: pointer; }
  #message { margin-top: 1rem; }
  .error { color: #b00020; } .ok { color: #1b5e20; }
</style>
</head>
<body>
<h1>Escolha uma nova senha</h1>
<form id="reset">
  <label for="password">Nova senha (8 caracteres ou mais)</label>
  <input id="password" type="password" autocomplete="new-password" minlength="8" required>
  <label for="confirm">Repita a nova senha</label>
  <input id="confirm" type="password" autocomplete="new-password" minlength="8" required>
  <button type="submit">Salvar nova senha</button>
</form>
<p id="message" role="status"></p>
<script>
  const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
  const form = document.getElementById('reset');
  const message = document.getElementById('message');
  const say = (text, kind) => { message.textContent = text; message.className = kind; };
  if (!/^[0-9a-f]{64}$/.test(token)) {
    form.hidden = true;
    say('Este link não é válido. Peça um novo link de redefinição de senha.', 'error');
  }
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const newPassword = document.getElementById('password').value;
    if (newPassword !== document.getElementById('confirm').value) return say('As senhas não são iguais.', 'error');
    say('Salvando…', '');
    try {
      const res = await fetch('/auth/password/reset', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, newPassword }),
      });
      if (res.status === 204) {
        form.hidden = true;
        history.replaceState(null, '', location.pathname);
        return say('Senha alterada. Entre com a nova senha.', 'ok');
      }
      const body = await res.json().catch(() => ({}));
      say(body.code === 'invalid_reset_token'
        ? 'Este link expirou ou já foi usado. Peça um novo link de redefinição de senha.'
        : (body.details && body.details[0] ? body.details[0].message : body.message) || 'Não foi possível salvar a senha.', 'error');
    } catch {
      say('Sem conexão com o servidor. Tente de novo.', 'error');
    }
  });
</script>
</body>
</html>
`;
