// Sign up and log in: one small form each. Errors from the server's JSON
// error codes show inline, next to the field they are about, and the form
// keeps what was typed.

import { h, mount } from '../dom.js';
import { api } from '../api.js';
import { navigate } from '../app.js';
import { setAccount, pageBeforeLogin, whoAmI } from '../account.js';

/** Which field an error code is about (the rest show under the form). */
const FIELD_OF = {
  bad_username: 'username',
  username_taken: 'username',
  bad_password: 'password',
};

export function loginPage(root) {
  return authPage(root, 'login');
}

export function signupPage(root) {
  return authPage(root, 'signup');
}

async function authPage(root, kind) {
  const signup = kind === 'signup';
  document.title = `${signup ? 'Sign up' : 'Log in'} · Tabula`;
  const already = await whoAmI();
  const field = (name, label, attrs, help) => {
    const error = h('p', { class: 'error field-error', id: `${name}-error`, 'aria-live': 'polite' });
    const input = h('input', { id: name, name, required: true, 'aria-describedby': `${name}-error${help ? ` ${name}-help` : ''}`, ...attrs });
    return {
      input, error,
      el: h('div', { class: 'field' }, h('label', { for: name }, label), input,
        help ? h('small', { class: 'hint', id: `${name}-help` }, help) : null, error),
    };
  };
  const username = field('username', 'Username', { type: 'text', autocomplete: 'username', autocapitalize: 'off', spellcheck: 'false', maxlength: 20 },
    signup ? '2 to 20 letters, digits, - or _, starting with a letter or digit. Ann and ann are the same name.' : null);
  const password = field('password', 'Password', { type: 'password', autocomplete: signup ? 'new-password' : 'current-password', maxlength: 200 },
    signup ? '8 to 200 characters.' : null);
  const message = h('p', { class: 'error form-error', id: 'auth-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary', id: signup ? 'signup-submit' : 'login-submit' }, signup ? 'Create the account' : 'Log in');
  const form = h('form', { class: 'card auth-form', id: `${kind}-form`, novalidate: true, 'aria-labelledby': 'auth-title' },
    h('h1', { id: 'auth-title' }, signup ? 'Create an account' : 'Log in'),
    already ? h('p', { class: 'hint' }, `You are logged in as ${already.username}. `) : null,
    username.el, password.el, submit, message,
    h('p', { class: 'hint' }, signup
      ? ['Already have an account? ', h('a', { href: '/login', 'data-link': true }, 'Log in'), '.']
      : ['New here? ', h('a', { href: '/signup', 'data-link': true }, 'Create an account'), '. Guests can play by invite link without one.']));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (const el of [username.error, password.error, message]) el.textContent = '';
    username.input.removeAttribute('aria-invalid');
    password.input.removeAttribute('aria-invalid');
    const name = username.input.value.trim();
    const pass = password.input.value;
    if (!name) return fieldError(username, 'Enter a username.');
    if (!pass) return fieldError(password, 'Enter a password.');
    submit.disabled = true;
    try {
      const account = signup ? await api.signup(name, pass) : await api.login(name, pass);
      setAccount(account);
      navigate(pageBeforeLogin(), { replace: true });
    } catch (err) {
      const which = FIELD_OF[err.code];
      if (which === 'username') fieldError(username, err.message);
      else if (which === 'password') fieldError(password, err.message);
      else message.textContent = err.message;
    } finally {
      submit.disabled = false;
    }
  });
  mount(root, h('div', { class: 'auth-page' }, form));
  username.input.focus();
}

function fieldError(field, text) {
  field.error.textContent = text;
  field.input.setAttribute('aria-invalid', 'true');
  field.input.focus();
}
