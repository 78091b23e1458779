/**
 * Evaluates arithmetic (`+ - * / % ^`, parentheses, decimals, unary minus) without `eval`: a small
 * recursive-descent parser, so a model's input can never run code.
 */
export function calculate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?|[-+*/%^()]|\S/g) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const take = () => tokens[i++];
  const expr = (): number => {
    let value = term();
    while (peek() === '+' || peek() === '-') value = take() === '+' ? value + term() : value - term();
    return value;
  };
  const term = (): number => {
    let value = power();
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const op = take();
      const right = power();
      if ((op === '/' || op === '%') && right === 0) throw new Error('division by zero');
      value = op === '*' ? value * right : op === '/' ? value / right : value % right;
    }
    return value;
  };
  const power = (): number => {
    const base = unary();
    if (peek() === '^') {
      take();
      return base ** power();
    }
    return base;
  };
  const unary = (): number => {
    if (peek() === '-') {
      take();
      return -unary();
    }
    if (peek() === '+') {
      take();
      return unary();
    }
    return primary();
  };
  const primary = (): number => {
    const token = take();
    if (token === '(') {
      const value = expr();
      if (take() !== ')') throw new Error('missing ")"');
      return value;
    }
    if (token !== undefined && /^\d/.test(token)) return Number(token);
    throw new Error(token === undefined ? 'unexpected end of expression' : `unexpected "${token}"`);
  };
  const value = expr();
  if (i < tokens.length) throw new Error(`unexpected "${tokens[i]}"`);
  return value;
}
