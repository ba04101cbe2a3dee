/** An error line, announced to screen readers; nothing when there is no error. */
export function ErrorLine({ error }: { error: string | undefined }) {
  return error ? (
    <p role="alert" className="error">
      {error}
    </p>
  ) : null;
}
